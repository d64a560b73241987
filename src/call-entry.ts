import type { Continuation } from './detectors/index.js';
import {
  argsDigitShape,
  argsShapeHash,
  argsWordSignature,
  classifyResult,
  errorDigest,
  hashText,
  pageStateHash,
  namesAnIdentifier,
  pendingAnswerShape,
  handlesIn,
  threadHandles,
  canonicalize,
  resultDigest,
  quotesArgs,
  readReceipt,
  subjectShapeHash,
  answerNamesSubject,
  type FingerprintOptions,
  type ReceiptReading,
} from './fingerprint/index.js';
import type { HistoryEntry } from './history.js';
import type { InternalErrors } from './internal-errors.js';
import { checkOutcome } from './completion-gate.js';
import { changedSpan, type ListedItems } from './listed-items.js';
import { conversationMessage } from './standing-ask.js';
import { namesAFile, saysNotThere, subjectsOf, type SubjectFunction, type SubjectRule } from './subjects.js';
import type { FailureKind, Outcome } from './types.js';

/** What a host knows of one call when it records it: the guard of its own calls, the processor of any tool span. */
export interface CallFacts {
  tool: string;
  argsHash: string;
  normArgsHash: string;
  /** The arguments' similarity sketch, when someone computed it. */
  argsSketch: string | undefined;
  /** The arguments' word signature, when computed before the host saw the call (an SDK in another process put it on the span). */
  argsWords: string | undefined;
  /** The arguments, when the host saw them: the argument shape and a named id are read from them. */
  hasArgs: boolean;
  args: unknown;
  /** The arguments' canonical text (ArgsFingerprint.argsText), when the host serialised them; undefined when it did not. */
  argsText: string | undefined;
  startMs: number;
  /** undefined: the call ends now, by the host's clock. */
  endMs: number | undefined;
  /** A shape computed before the host saw the call (an SDK in another process put it on the span). */
  shapeHash: string | undefined;
  /** Whoever made the span marked the call as not executed. */
  blocked: boolean;
  /** The tool's fingerprint settings. */
  fingerprint: FingerprintOptions | undefined;
}

/** How the call ended. */
export type CallEnd =
  /** It returned a result; `outcome` is what the tool declared, if it did. */
  | { kind: 'returned'; result: unknown; outcome: Outcome | undefined }
  /** `retryable`: the tool's own word on whether a retry may pass. */
  | { kind: 'failed'; errorType: string | undefined; message: string | undefined; retryable?: boolean }
  /** Only a hash (and maybe a sketch) reached the host (hashed in another process), or nobody recorded the result. */
  | { kind: 'hashed'; resultHash: string; outcome: Outcome; resultSketch?: string; failure?: FailureKind; pageState?: string }
  /** Loopguard refused it: recorded as the call of the pattern it stands for, or as a call that continues none. */
  | { kind: 'refused'; as: Continuation | undefined };

/** What the engine tells the builder about the run so far. */
export interface RunLookup {
  /** Does this answer repeat the run's latest call, of the same tool? */
  repeatsLastAnswer(runKey: string, tool: string, resultHash: string, items: number): boolean;
  /** The tool's own rule for the subjects of its checks, if it has one. */
  subjectRule(tool: string): SubjectRule | SubjectFunction | undefined;
  /** Has the run a failed check still open (else a success has nothing to clear)? */
  hasOpenChecks(runKey: string): boolean;
  /** Did a call of the tool with other arguments get this very answer in the run's window (this call may be resent in other words)? */
  answeredOtherArgs(runKey: string, tool: string, argsHash: string, resultHash: string): boolean;
  /** Does the run's window hold a call with a word signature that found nothing (which this call's words may repeat)? */
  foundNothingLately(runKey: string): boolean;
  /** What the run was shown (src/listed-items.ts), for the call about to be recorded. */
  listedItems(runKey: string): ListedItems;
  /** The handles the run's latest pending answer handed it, and noting new ones. */
  handedHandles(runKey: string): readonly string[];
  noteHandles(runKey: string, handles: readonly string[]): void;
  /** Is the completion gate on? Off, no call needs its subjects or its exit code read. */
  readonly gateOn: boolean;
}

/** Classifies a result before the built-in rules (the guard's `classifyResult` option). */
export type ResultClassifier = (tool: string, result: unknown) => Outcome | undefined;

/** Result hash of a refused call that continues no pattern. */
const NOT_EXECUTED_RESULT = hashText('loopguard:not-executed');

/**
 * Builds the history entry of one call: the one place that decides which
 * outcome wins, when a shape is worth computing and whether the arguments
 * name an id, for both hosts (the in-process guard and any span the
 * processor reads, locally or in the collector).
 */
export class CallEntries {
  constructor(
    private readonly runs: RunLookup,
    private readonly now: () => number,
    private readonly errors: InternalErrors,
  ) {}

  build(runKey: string, call: CallFacts, end: CallEnd, classify?: ResultClassifier): HistoryEntry {
    if (end.kind === 'refused') {
      const as = end.as;
      // The refused call stands for the repeat it prevented: recorded with the answer and flags the loop would have given.
      const e = this.entry(call, as?.resultHash ?? NOT_EXECUTED_RESULT, as?.outcome ?? 'ok', true, as?.shapeHash, as?.informative ?? false, as?.namesId ?? false);
      e.failure = as?.failure;
      return e;
    }
    let hash: string;
    let outcome: Outcome;
    let informative = false;
    /** What a short result says of its call (fingerprint readReceipt). */
    let reading: ReceiptReading;
    let sketch: string | undefined;
    let page: string | undefined;
    /** The result's masked text, when it returned one. */
    let shown: string | undefined;
    /** The order-free hash of what the result lists, 0 for none. */
    let items = 0;
    let failure: FailureKind | undefined;
    /** How the call went as a check, where the result says it apart from the outcome (an exit code). */
    let checked: Outcome | undefined;
    /** What the failure says of itself, for telling "not there" from a failed check. */
    let said: (() => string | undefined) | undefined;
    if (end.kind === 'returned') {
      const digest = resultDigest(end.result, call.fingerprint);
      hash = digest.hash;
      shown = digest.text;
      items = digest.items;
      // A short result is informative when it states more than its call said; arguments hashed elsewhere (no text here)
      // leave it to the length test.
      const asked = call.hasArgs ? call.argsText : '';
      reading = digest.informative || asked === undefined ? undefined : readReceipt(digest.text, call.tool, asked);
      informative = digest.informative || reading === 'states';
      sketch = digest.sketch;
      page = pageStateHash(end.result);
      outcome = end.outcome ?? this.classify(call.tool, end.result, classify);
      checked = this.runs.gateOn ? checkOutcome(end.result) : undefined;
      const result = end.result;
      if ((checked ?? outcome) === 'error') said = () => (typeof result === 'string' ? result : safeJson(result));
    } else if (end.kind === 'failed') {
      const digest = errorDigest(end.errorType, end.message, call.hasArgs ? call.args : undefined, end.retryable);
      hash = digest.hash;
      sketch = digest.sketch;
      failure = digest.failure;
      outcome = 'error';
      said = () => end.message;
    } else {
      hash = end.resultHash;
      outcome = end.outcome;
      sketch = end.resultSketch;
      failure = end.failure;
      page = end.pageState;
    }
    // Only empty answers (guessed ids or exploration) and repeated answers (reworded or other subjects) need the shape.
    const repeats = outcome === 'ok' && informative && this.runs.repeatsLastAnswer(runKey, call.tool, hash, items);
    const shape = outcome === 'empty' || repeats ? this.shapeOf(call, outcome === 'empty') : undefined;
    // Only pending answers need the id: a call naming its job polls it, one without resubmits.
    const namesId = outcome === 'pending' && call.hasArgs && namesAnIdentifier(call.args);
    const e = this.entry(call, hash, outcome, call.blocked, shape, informative, namesId);
    // Only pending answers need it: a submission sent again is answered alike but for the reference it is handed.
    if (outcome === 'pending' && shown !== undefined) e.pendingShape = pendingAnswerShape(shown);
    // A call passing back a handle an answer handed the run (a statement handle, a new job id) is the same step whatever
    // the handle: read through <h>, a submit/check/cancel round redone with each new handle is the same round again.
    const handles = this.runs.handedHandles(runKey);
    const threaded = handles.length > 0 && call.argsText !== undefined ? threadHandles(call.argsText, handles) : undefined;
    if (threaded !== undefined) e.normArgsHash = hashText(threaded);
    if (outcome === 'pending' && end.kind === 'returned') this.runs.noteHandles(runKey, handlesIn(canonicalize(end.result)));
    const listed = call.hasArgs || informative ? this.runs.listedItems(runKey) : undefined;
    // Only a repeated answer needs it: one that names a name respelled is that name's, not a sweep's.
    if (repeats && call.hasArgs && shown !== undefined) {
      const before = listed!.argsOf(call.tool);
      const changed = before !== undefined && call.argsText !== undefined ? changedSpan(before, call.argsText) : undefined;
      e.namesSubject = answerNamesSubject(call.args, shown, call.fingerprint, changed);
    }
    // Only a call told something its tool told other arguments before may be a resend in other words.
    const resent = informative && call.hasArgs && outcome !== 'empty' && this.runs.answeredOtherArgs(runKey, call.tool, call.argsHash, hash);
    // Only an ask that found nothing, one that may end a streak of them, or a resend needs its words: most calls skip them.
    if (e.argsWords === undefined && call.hasArgs && (outcome === 'empty' || resent || this.runs.foundNothingLately(runKey))) {
      e.argsWords = argsWordSignature(call.args, call.argsSketch, call.fingerprint);
    }
    // Long arguments are compared by sketch, which cannot tell a sweep over a number: their digit shape can.
    if (resent) e.digitShapeHash = argsDigitShape(call.args, call.argsSketch, call.fingerprint);
    e.resultSketch = sketch;
    e.itemSetHash = items;
    e.pageState = page;
    e.failure = failure;
    e.subjects = this.subjects(runKey, call, checked ?? outcome, said);
    e.checkOutcome = checked;
    // Only an acknowledgement needs it: a call naming a file that its tool acknowledges alike is an edit, not a note, and
    // so is one acknowledged in nothing but its own words ("Entry updated." to cms_update_field {"entry_id": …}).
    e.acknowledgedWork = outcome === 'ok' && !informative && call.hasArgs && (reading === 'echoes' || namesAFile(call.args));
    // Only an answer made of the call's words can be a piece of its arguments.
    e.echoesArgs = outcome === 'ok' && reading === 'echoes' && shown !== undefined && call.argsText !== undefined && quotesArgs(shown, call.argsText);
    if (call.hasArgs) {
      // Only the answers the sweep detectors count need the item (an emptiness, a failure, an answer repeated): most calls skip it.
      if (outcome === 'empty' || outcome === 'error' || repeats) {
        const item = listed!.itemTaken(call.tool, call.argsText);
        // A failure counts as an answer about the item only when it names it ("vol-0b7d… is attached to …"); "Invalid
        // action!" or a schema error for every item is the call's own fault, the same whatever it asked.
        e.takesListedItem = item !== undefined && (outcome !== 'error' || (end.kind === 'failed' ? end.message : shown)?.includes(item) === true);
      } else listed!.noteArgs(call.tool, call.argsText);
    }
    if (outcome === 'ok' && informative && !repeats && shown !== undefined) listed!.noteListing(shown);
    const reply = end.kind === 'returned' && call.hasArgs ? end.result : undefined;
    const message = conversationMessage(call.args, reply);
    if (message !== undefined) e.turn = { message, reply: reply as string, argsText: call.argsText };
    return e;
  }

  /**
   * The subjects the call checked (`outcome`: how the check went); a failure
   * that only says the thing is not there checks no service or file. Only failures, and successes while a
   * failure is open, need them, and only while the gate is on: most calls skip the inference.
   */
  private subjects(runKey: string, call: CallFacts, outcome: Outcome, said: (() => string | undefined) | undefined): readonly string[] | undefined {
    if (!this.runs.gateOn || !call.hasArgs || outcome === 'pending' || (outcome !== 'error' && !this.runs.hasOpenChecks(runKey))) return undefined;
    const rule = this.runs.subjectRule(call.tool);
    const found = this.errors.run('the subject rule threw; the call checks no subject', () => subjectsOf(call.args, rule), []);
    if (found.length === 0) return undefined;
    if (outcome !== 'error' || !saysNotThere(said?.())) return found;
    const tests = found.filter((s) => s.startsWith('test://'));
    return tests.length === 0 ? undefined : tests;
  }

  private classify(tool: string, result: unknown, classify: ResultClassifier | undefined): Outcome {
    const own = classify && this.errors.run('classifyResult threw; the built-in rules decide', () => classify(tool, result), undefined);
    return own ?? classifyResult(result);
  }

  /** Empty answers get the digit-folded shape (guessed ids), repeated answers the subject shape (other things asked alike). */
  private shapeOf(call: CallFacts, empty: boolean): string | undefined {
    if (call.shapeHash !== undefined) return call.shapeHash;
    if (!call.hasArgs) return undefined;
    return empty ? argsShapeHash(call.args, call.fingerprint) : subjectShapeHash(call.args, call.fingerprint);
  }

  private entry(
    call: CallFacts,
    resultHash: string,
    outcome: Outcome,
    blocked: boolean,
    shapeHash: string | undefined,
    informative: boolean,
    namesId: boolean,
  ): HistoryEntry {
    // One literal with every field (no spread): entries are built on every call.
    return {
      tool: call.tool,
      argsHash: call.argsHash,
      normArgsHash: call.normArgsHash,
      resultHash,
      outcome,
      blocked,
      startMs: call.startMs,
      endMs: call.endMs ?? this.now(),
      shapeHash,
      informative,
      namesId,
      argsSketch: call.argsSketch,
      argsWords: call.argsWords,
      digitShapeHash: undefined,
      resultSketch: undefined,
      pageState: undefined,
      failure: undefined,
      subjects: undefined,
      checkOutcome: undefined,
      acknowledgedWork: false,
      takesListedItem: false,
      namesSubject: false,
      pendingShape: undefined,
      turn: undefined,
      restatedAsk: 0,
    };
  }
}

function safeJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}
