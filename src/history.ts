import { comparableByNearness, sketchShingles, sketchWords } from './fingerprint/sketch.js';
import { rewordedWords, SIGNATURE_WORDS, signatureWords } from './fingerprint/words.js';
import { answerOf, EXACT_ANSWER, NEW_ANSWER, resultsAlike } from './history/answers.js';
import { hex, hi, ParsedHash } from './history/hash-words.js';
import { argsAlike, exchangeAlike } from './history/nearness.js';
import { FIRST_FULL_PERIOD, SAME_CALLS, updatePeriodicity } from './history/periodicity.js';
import * as slot from './history/slot.js';
import type { FailureKind, Outcome } from './types.js';

/**
 * Compact per-run history: a ring of the last `window` tool calls kept in one
 * Uint32Array of SLOT words per call (3.2 KB at the default window of 30),
 * fixed however long the run lives; the bench's bytesPerRun adds the rest of
 * a tracked run's state. Hashes are stored as two 32-bit halves of their 16
 * hex chars; tool names are interned.
 */

// Module-local copies of the slot layout: see slot.ts on why.
const {
  ARGS_SKETCH_WORDS,
  F_ANSWER,
  F_ARGS_HI,
  F_ARGS_LO,
  F_ARGS_SKETCH,
  F_ARGS_WORDS,
  F_DIGIT_SHAPE,
  F_ITEMS,
  F_KIND,
  F_NORM_HI,
  F_NORM_LO,
  F_PAGE,
  F_RES_HI,
  F_RES_LO,
  F_RESULT_SKETCH,
  F_SHAPE,
  F_TOOL_FLAGS,
  FLAG_ANSWERED_BEFORE,
  FLAG_ASKED_AGAIN,
  FLAG_BLOCKED,
  FLAG_INFORMATIVE,
  FLAG_NAMES_ID,
  FLAG_SPACED,
  KIND_ACKNOWLEDGED_WORK,
  KIND_ARGS_NEAR,
  KIND_ARGS_WORDS,
  KIND_DETERMINISTIC,
  KIND_ECHOED,
  KIND_ECHOES_ARGS,
  KIND_LASTED_LONG,
  KIND_LISTED_ITEM,
  KIND_NAMES_SUBJECT,
  KIND_REASKED_SHIFT,
  KIND_RESTATED_ASK_SHIFT,
  KIND_RESUBMITTED,
  KIND_RESULT_NEAR,
  KIND_RETURNED,
  KIND_SHINGLES_SHIFT,
  KIND_TRANSIENT,
  KIND_WAITED,
  OUTCOME_CODES,
  OUTCOME_NAMES,
  RESULT_SKETCH_WORDS,
  SLOT,
} = slot;

/**
 * A call that starts this long after the previous one started, or lasts this
 * long, comes at a waiting pace (a poll every minute, a long poll that timed
 * out, `wait(120)`).
 */
export const SPACED_MS = 30_000;

/**
 * Longest cycle period looked for. The counters compare each call with the
 * one p steps earlier as calls arrive, so only that one call must still be in
 * the window: a paging sweep of 20 pages restarted is caught, where a
 * detector that needs two whole periods in view would miss it.
 */
export function maxPeriod(window: number): number {
  return window - 1;
}

/**
 * The argument and result hashes last read, as words (see ParsedHash): one
 * pair for every run, since the look-ups of a call and its push follow one
 * another (any other order only parses again).
 */
const argsWords = new ParsedHash();
const resultWords = new ParsedHash();

/** One call as the history stores it; hashes are 16 hex chars. */
export interface HistoryEntry {
  tool: string;
  argsHash: string;
  normArgsHash: string;
  resultHash: string;
  outcome: Outcome;
  blocked: boolean;
  startMs: number;
  endMs: number;
  /** Hash of the arguments with digits masked, for `empty` calls (tells guessed ids from exploration). */
  shapeHash?: string;
  /** The result says something specific (not a bare acknowledgement). */
  informative?: boolean;
  /** The arguments name a thing by its id (a `pending` call with one polls a job instead of submitting it). */
  namesId?: boolean;
  /** Similarity sketches (fingerprint/sketch.ts) of the result (or failure) and of the arguments. */
  resultSketch?: string;
  argsSketch?: string;
  /** Word signature of short arguments (fingerprint/words.ts): the same question reworded. */
  argsWords?: string;
  /**
   * Hash of the arguments with digits folded (fingerprint argsShapeHash), for
   * calls that may be resent in other words (told what other arguments were
   * told) whose arguments are long enough to compare by sketch: tells such a
   * resend from a sweep over a number (see resentReworded).
   */
  digitShapeHash?: string | undefined;
  /** For failures: would the same call succeed if retried (transient) or fail the same way (deterministic)? */
  failure?: FailureKind;
  /** Which page view the result shows (fingerprint/page-state.ts), for results that show one. */
  pageState?: string | undefined;
  /** What the call checked (src/subjects.ts), for the completion gate; not kept in the ring. */
  subjects?: readonly string[] | undefined;
  /** How the check went, when the result says it otherwise than `outcome` (a command's exit code: checkOutcome); the completion gate's only. */
  checkOutcome?: Outcome | undefined;
  /** The arguments the subjects came from are on the call's span (exported), so their names may be too. */
  subjectsNamed?: boolean;
  /**
   * The call is what its acknowledgement is about: its arguments name a file (src/subjects.ts namesAFile) or the
   * acknowledgement is made of its own words (fingerprint readReceipt `echoes`); recorded for acknowledged calls only.
   */
  acknowledgedWork?: boolean;
  /** The answer is nothing but a piece of the call's own arguments (`echo 'Done again.'` answered `Done again.`; see fingerprint quotesArgs): it told the run nothing. */
  echoesArgs?: boolean;
  /** The call swapped in an item an earlier result listed (src/listed-items.ts); recorded for the answers sweeps repeat. */
  takesListedItem?: boolean;
  /**
   * The answer names what the arguments named (fingerprint answerNamesSubject);
   * recorded for answers that repeat the tool's latest one.
   */
  namesSubject?: boolean;
  /**
   * Hash of a pending answer's masked text with handle-like tokens folded
   * (fingerprint pendingAnswerShape); recorded for pending answers only.
   */
  pendingShape?: string | undefined;
  /**
   * The order-free hash of what the result lists (fingerprint item-set.ts):
   * the same hits in another order, with other scores, hash alike. 0 or
   * undefined when the result lists nothing.
   */
  itemSetHash?: number;
  /**
   * The call is a conversation turn (src/standing-ask.ts conversationMessage):
   * what it said, the reply, and its canonical arguments when the host has
   * them; read by the engine before the call is recorded, not kept in the ring.
   */
  turn?: { message: string; reply: string; argsText: string | undefined } | undefined;
  /**
   * The call is a conversation turn that asks again for what the reply
   * before it gave, a value the run already had (src/standing-ask.ts): 1 for
   * the first such ask since the conversation was interrupted, 2 for a later
   * one; 0 or undefined for any other call. The engine sets it from `turn`.
   */
  restatedAsk?: 0 | 1 | 2;
}

/**
 * The ring plus streaming periodicity counters: `exactRun[p]` is how many
 * consecutive latest calls equal (call and result) the call p steps earlier,
 * `normRun[p]` the same with normalised arguments. A cycle of period p has
 * repeated once in full when its counter reaches p.
 */
export class RunHistory {
  /** Calls recorded so far; the latest call's step. */
  total = 0;
  /** Epoch ms of the first call, and of the latest activity (for TTL eviction). */
  firstMs = 0;
  lastMs = 0;
  private lastStartMs = 0;
  /** Answer numbers handed out so far, and a scratch list for answerOf. */
  private answers = 0;
  private readonly firstOfAnswer: number[] = [];
  /** Step of the latest call with a word signature that found nothing (0: none yet). */
  private lastEmptyAsk = 0;
  /** 32 bits of the latest call's pending answer shape (HistoryEntry.pendingShape, never 0), or 0 when it had none. */
  private lastPendingShape = 0;
  readonly window: number;
  readonly periods: number;
  private readonly buf: Uint32Array;
  private readonly countersAt: number;

  constructor(window: number) {
    this.window = window;
    this.periods = maxPeriod(window);
    this.countersAt = window * SLOT;
    this.buf = new Uint32Array(window * SLOT + 2 * (this.periods + 1));
  }

  /** Calls currently held (at most the window). */
  get size(): number {
    return this.total < this.window ? this.total : this.window;
  }

  /** Does the call `back` steps ago have this KIND_ bit? */
  private hasKind(back: number, bit: number): boolean {
    return (this.buf[this.at(back) + F_KIND]! & bit) !== 0;
  }

  /** Does the call `back` steps ago have this FLAG_ bit? */
  private hasFlag(back: number, bit: number): boolean {
    return (this.buf[this.at(back) + F_TOOL_FLAGS]! & bit) !== 0;
  }

  /** Offset of the call `back` steps before the latest (0 = latest). */
  private at(back: number): number {
    return ((this.total - 1 - back) % this.window) * SLOT;
  }

  push(tool: number, e: HistoryEntry): void {
    // Waiting shows as a start half a minute after the last one, or as a call that itself took that long (a long poll,
    // a wait tool, a slow run the agent was asked to repeat).
    const long = e.endMs - e.startMs >= SPACED_MS;
    const spaced = (this.total > 0 && e.startMs - this.lastStartMs >= SPACED_MS) || long;
    // Time the run itself let pass: the call lasted long, or began long after the last one ended. A call that merely
    // follows a slow one (a 38 s `compose up`) comes at a waiting pace but waited for nothing.
    const waited = (this.total > 0 && e.startMs - this.lastMs >= SPACED_MS) || long;
    if (this.total === 0) this.firstMs = e.startMs;
    this.lastMs = e.endMs;
    this.lastStartMs = e.startMs;
    this.total++;
    const o = this.at(0);
    const b = this.buf;
    const args = argsWords.read(e.argsHash);
    const argsHi = args.hi;
    const argsLo = args.lo;
    b[o + F_ARGS_HI] = argsHi;
    b[o + F_ARGS_LO] = argsLo;
    // Most arguments normalise to themselves (the very same string): parse once.
    if (e.normArgsHash === e.argsHash) {
      b[o + F_NORM_HI] = argsHi;
      b[o + F_NORM_LO] = argsLo;
    } else {
      const norm = argsWords.read(e.normArgsHash);
      b[o + F_NORM_HI] = norm.hi;
      b[o + F_NORM_LO] = norm.lo;
    }
    const result = resultWords.read(e.resultHash);
    b[o + F_RES_HI] = result.hi;
    b[o + F_RES_LO] = result.lo;
    const flags =
      OUTCOME_CODES[e.outcome] | (e.blocked ? FLAG_BLOCKED : 0) | (e.informative ? FLAG_INFORMATIVE : 0) | (e.namesId ? FLAG_NAMES_ID : 0) | (spaced ? FLAG_SPACED : 0);
    b[o + F_TOOL_FLAGS] = ((tool << 8) | flags) >>> 0;
    b[o + F_SHAPE] = e.shapeHash === undefined ? 0 : hi(e.shapeHash);
    let kind = e.failure === 'transient' ? KIND_TRANSIENT : e.failure === 'deterministic' ? KIND_DETERMINISTIC : 0;
    if (e.acknowledgedWork === true) kind |= KIND_ACKNOWLEDGED_WORK;
    if (e.echoesArgs === true) kind |= KIND_ECHOES_ARGS;
    if (long) kind |= KIND_LASTED_LONG;
    if (waited) kind |= KIND_WAITED;
    if (e.takesListedItem === true) kind |= KIND_LISTED_ITEM;
    if (e.restatedAsk) kind |= e.restatedAsk << KIND_RESTATED_ASK_SHIFT;
    if (e.namesSubject === true) kind |= KIND_NAMES_SUBJECT;
    // A refused call stands for the repeat it prevented, pending answer shape and all.
    const pendingShape = e.blocked ? (e.outcome === 'pending' ? this.lastPendingShape : 0) : e.pendingShape === undefined ? 0 : hi(e.pendingShape) || 1;
    if (pendingShape !== 0 && pendingShape === this.lastPendingShape && this.sameCall(0, 1)) kind |= KIND_RESUBMITTED;
    this.lastPendingShape = pendingShape;
    if (e.resultSketch !== undefined && comparableByNearness(e.resultSketch)) {
      kind |= KIND_RESULT_NEAR | (sketchShingles(e.resultSketch) << KIND_SHINGLES_SHIFT);
      sketchWords(e.resultSketch, b, o + F_RESULT_SKETCH, RESULT_SKETCH_WORDS);
    }
    if (e.argsSketch !== undefined) {
      // The skeleton always (it names the operation); the bins only when there is free text to compare.
      const long = comparableByNearness(e.argsSketch);
      if (long) kind |= KIND_ARGS_NEAR;
      sketchWords(e.argsSketch, b, o + F_ARGS_SKETCH, long ? ARGS_SKETCH_WORDS : 1);
    } else {
      // No free text: the arguments are their skeleton, and their hash stands for it.
      b[o + F_ARGS_SKETCH] = argsHi;
    }
    if (e.argsWords !== undefined && (kind & KIND_ARGS_NEAR) === 0) {
      kind |= KIND_ARGS_WORDS;
      signatureWords(e.argsWords, b, o + F_ARGS_WORDS);
      if (e.outcome === 'empty') this.lastEmptyAsk = this.total;
    }
    const page = e.pageState === undefined ? 0 : hi(e.pageState) || 1;
    b[o + F_PAGE] = page;
    b[o + F_DIGIT_SHAPE] = e.digitShapeHash === undefined ? 0 : hi(e.digitShapeHash) || 1;
    b[o + F_ITEMS] = e.itemSetHash ?? 0;
    if (page !== 0 && this.returnsToPage(page)) kind |= KIND_RETURNED;
    b[o + F_KIND] = kind;
    let answer = answerOf(b, o, tool, this.size, this.window, this.firstOfAnswer);
    if (answer === NEW_ANSWER) answer = this.answers = (this.answers + 1) & ~EXACT_ANSWER;
    b[o + F_ANSWER] = answer;
    const answeredBefore = updatePeriodicity(b, o, this.window, this.total, this.periods, this.countersAt);
    const saysSomething = (b[o + F_TOOL_FLAGS]! & 3) !== OUTCOME_CODES.error && (b[o + F_TOOL_FLAGS]! & FLAG_INFORMATIVE) !== 0;
    if (answeredBefore && saysSomething && this.earlierSameCalls() === 0) b[o + F_KIND] = b[o + F_KIND]! | KIND_ECHOED;
  }

  /**
   * Does the call just written, showing the page view `page`, come back to a
   * view seen earlier in the window? Staying on the view the run last saw (a
   * second click on it, a note written in between) is not coming back.
   */
  private returnsToPage(page: number): boolean {
    const b = this.buf;
    let s = this.at(0);
    let last = true;
    for (let back = 1; back < this.size; back++) {
      s = s === 0 ? (this.window - 1) * SLOT : s - SLOT;
      const seen = b[s + F_PAGE]!;
      if (seen === 0) continue;
      if (seen === page) return !last;
      last = false;
    }
    return false;
  }

  /** Consecutive latest calls equal to the call p steps before them (exact arguments). */
  exactRun(p: number): number {
    return this.buf[this.countersAt + p]!;
  }

  /** The same with normalised arguments. */
  normRun(p: number): number {
    return this.buf[this.countersAt + this.periods + 1 + p]!;
  }

  /** The shortest period p >= 2 with normRun(p) >= p, or 0 when there is none: shorter periods need not be read. */
  firstFullPeriod(): number {
    return this.buf[this.countersAt + FIRST_FULL_PERIOD]!;
  }

  toolId(back: number): number {
    return this.buf[this.at(back) + F_TOOL_FLAGS]! >>> 8;
  }

  outcome(back: number): Outcome {
    return OUTCOME_NAMES[this.buf[this.at(back) + F_TOOL_FLAGS]! & 3]!;
  }

  /** Was the call `back` steps ago refused by the breaker (recorded as the repeat it stood for)? */
  blocked(back: number): boolean {
    return this.hasFlag(back, FLAG_BLOCKED);
  }

  informative(back: number): boolean {
    return this.hasFlag(back, FLAG_INFORMATIVE);
  }

  /** Did the call `back` steps ago come at a waiting pace (see SPACED_MS)? */
  spaced(back: number): boolean {
    return this.hasFlag(back, FLAG_SPACED);
  }

  /** Did the call `back` steps ago wait: last 30 s or more itself, or begin 30 s or more after the call before it ended? */
  waited(back: number): boolean {
    return this.hasKind(back, KIND_WAITED);
  }

  /** Did the call `back` steps ago itself last SPACED_MS or more (a sleep, a long poll), not merely start late? */
  lastedLong(back: number): boolean {
    return this.hasKind(back, KIND_LASTED_LONG);
  }

  /** Did each of the latest `calls` calls (at least one) start at least SPACED_MS after the call before it? */
  allSpaced(calls: number): boolean {
    for (let back = 0; back < calls; back++) if (!this.spaced(back)) return false;
    return calls > 0;
  }

  /** Was the answer to the call `back` steps ago nothing but a piece of its own arguments (HistoryEntry.echoesArgs)? */
  echoesArgs(back: number): boolean {
    return this.hasKind(back, KIND_ECHOES_ARGS);
  }

  /** Is the call `back` steps ago what its acknowledgement is about: does it name a file, or is it acknowledged in its own words (HistoryEntry.acknowledgedWork)? */
  acknowledgedWork(back: number): boolean {
    return this.hasKind(back, KIND_ACKNOWLEDGED_WORK);
  }

  /**
   * Was the call `back` steps ago new (not made before in the window), told
   * something specific, and told what its tool had already told another call
   * (the same answer, as sameResult reads it)? The run tried another way and
   * met the same answer: "nothing to commit" to another commit command,
   * "unchanged" to another apply, the same top hit for a reworded search, a
   * page reached again through another link. Failures are the failure
   * families' evidence, not an echo.
   */
  echoedAnswer(back: number): boolean {
    return this.hasKind(back, KIND_ECHOED);
  }

  /**
   * Was the call `back` steps ago made again right after itself and answered
   * "pending" as before apart from the handle each answer carries (a new
   * export reference, a new payer reference)? The work was submitted anew,
   * not checked on: each fresh reference reads as a new answer, and none is
   * progress.
   */
  resubmitted(back: number): boolean {
    return this.hasKind(back, KIND_RESUBMITTED);
  }

  /** Did the call `back` steps ago swap in an item an earlier result listed: one step of a sweep over a listing? */
  takesListedItem(back: number): boolean {
    return this.hasKind(back, KIND_LISTED_ITEM);
  }

  namesId(back: number): boolean {
    return this.hasFlag(back, FLAG_NAMES_ID);
  }

  /** Same tool and exact arguments. */
  sameCall(a: number, b: number): boolean {
    return this.sameToolAndHash(a, b, F_ARGS_HI);
  }

  /**
   * Same tool and the same normalised arguments: the same call, re-sent with
   * other spacing or case, or an instant spelled another way (docs/fingerprints.md);
   * not merely sent again in other words (see resentReworded).
   */
  sameNormalisedCall(a: number, b: number): boolean {
    return this.sameToolAndHash(a, b, F_NORM_HI);
  }

  /** Same tool, and the same hash in the two words from `field` (its high half, then its low half). */
  private sameToolAndHash(a: number, b: number, field: number): boolean {
    const x = this.at(a);
    const y = this.at(b);
    const buf = this.buf;
    return buf[x + F_TOOL_FLAGS]! >>> 8 === buf[y + F_TOOL_FLAGS]! >>> 8 && buf[x + field] === buf[y + field] && buf[x + field + 1] === buf[y + field + 1];
  }

  /** Same argument shape (digits masked); calls without a recorded shape match each other. */
  sameShape(a: number, b: number): boolean {
    return this.buf[this.at(a) + F_SHAPE] === this.buf[this.at(b) + F_SHAPE];
  }

  /** The stored shape: the first 32 bits of its hash (0 when none was recorded). */
  shapeHash(back: number): number {
    return this.buf[this.at(back) + F_SHAPE]!;
  }

  /**
   * The stored shape as a hash that `push` stores back unchanged: its 32 bits
   * in the high half (where `push` reads them), zeros after. A blocked call
   * recorded with it keeps the shape of the calls it stands for.
   */
  shapeHashText(back: number): string {
    return hex(this.buf[this.at(back) + F_SHAPE]!, 0);
  }

  /** Earlier calls in the window with the latest call's tool and arguments, counted as the call was pushed (SAME_CALLS). */
  earlierSameCalls(): number {
    return this.buf[this.countersAt + this.periods + 1 + SAME_CALLS]!;
  }

  /** Did a call of the tool with other arguments than `argsHash` get the very result `resultHash` in the window? */
  answeredOtherArgs(tool: number, argsHash: string, resultHash: string): boolean {
    return this.answeredWith(tool, argsHash, resultHash, false);
  }

  /** Was this very call (tool and arguments) made in the window and answered `resultHash`, as it is now? */
  answeredAlike(tool: number, argsHash: string, resultHash: string): boolean {
    return this.answeredWith(tool, argsHash, resultHash, true);
  }

  /** Did a call of the tool get the very result `resultHash` in the window, with the arguments `argsHash` or (`same` false) with others? One tight pass over the ring. */
  private answeredWith(tool: number, argsHash: string, resultHash: string, same: boolean): boolean {
    const b = this.buf;
    const result = resultWords.read(resultHash);
    const resHi = result.hi;
    const resLo = result.lo;
    const args = argsWords.read(argsHash);
    const argsHi = args.hi;
    const argsLo = args.lo;
    // Step one slot back through the ring instead of a modulo per slot.
    for (let back = 0, o = this.at(0); back < this.size; back++, o = o === 0 ? (this.window - 1) * SLOT : o - SLOT) {
      if (b[o + F_RES_LO] !== resLo || b[o + F_RES_HI] !== resHi || b[o + F_TOOL_FLAGS]! >>> 8 !== tool) continue;
      if ((b[o + F_ARGS_LO] === argsLo && b[o + F_ARGS_HI] === argsHi) === same) return true;
    }
    return false;
  }

  /** Had the tool of the call `back` steps ago already given that answer, earlier in the window? */
  answeredBefore(back: number): boolean {
    const tool = this.toolId(back);
    for (let older = back + 1; older < this.size; older++) {
      if (this.toolId(older) === tool && this.sameResult(back, older)) return true;
    }
    return false;
  }

  /** Was the call `back` steps ago (same tool and arguments) made before, earlier in the window? */
  calledBefore(back: number): boolean {
    for (let older = back + 1; older < this.size; older++) if (this.sameCall(back, older)) return true;
    return false;
  }

  /** Was a call like the one `back` steps ago (same tool, same or near arguments) made before, earlier in the window? */
  calledAlikeBefore(back: number): boolean {
    for (let older = back + 1; older < this.size; older++) if (this.similarCall(back, older)) return true;
    return false;
  }

  /** Has the tool of the call `back` steps ago answered anything else earlier in the window? */
  toolAnswersVary(back: number): boolean {
    const tool = this.toolId(back);
    for (let older = back + 1; older < this.size; older++) {
      if (this.toolId(older) === tool && !this.sameResult(back, older)) return true;
    }
    return false;
  }

  /**
   * Did the two calls get the same answer (the same answer number, see
   * answerOf: equal results, or long texts near enough that the difference is
   * noise such as OCR wording or "visited 9 seconds ago")? Every detector
   * reads "same result" here.
   */
  sameResult(a: number, b: number): boolean {
    return resultsAlike(this.buf, this.at(a), this.at(b));
  }

  /** The very same result (equal hashes): for evidence that rests on results alone. */
  sameExactResult(a: number, b: number): boolean {
    const x = this.at(a);
    const y = this.at(b);
    return this.buf[x + F_RES_HI] === this.buf[y + F_RES_HI] && this.buf[x + F_RES_LO] === this.buf[y + F_RES_LO];
  }

  /**
   * Did the two calls list the same items (the same set, whatever their order
   * and scores; see HistoryEntry.itemSetHash)? For evidence that rests on
   * results alone, beside sameExactResult.
   */
  sameItems(a: number, b: number): boolean {
    const items = this.buf[this.at(a) + F_ITEMS]!;
    return items !== 0 && items === this.buf[this.at(b) + F_ITEMS];
  }

  /** Did the call `back` steps ago list these items (itemSetHash, 0 for none)? */
  itemsAre(back: number, items: number): boolean {
    return items !== 0 && this.buf[this.at(back) + F_ITEMS] === items;
  }

  /**
   * Same tool and the same arguments but for their free text: the same
   * operation (`str_replace` on one file) with whatever text it was given.
   * Arguments without free text are their own skeleton: one operation per
   * distinct arguments.
   */
  sameOperation(a: number, b: number): boolean {
    const x = this.at(a);
    const y = this.at(b);
    return this.buf[x + F_TOOL_FLAGS]! >>> 8 === this.buf[y + F_TOOL_FLAGS]! >>> 8 && this.buf[x + F_ARGS_SKETCH] === this.buf[y + F_ARGS_SKETCH];
  }

  /** Do the arguments of the call `back` steps ago carry free text (long enough to be compared by their sketch)? */
  hasFreeText(back: number): boolean {
    return this.hasKind(back, KIND_ARGS_NEAR);
  }

  /** Same tool, and the same normalised arguments or two long ones near enough (a cell cut off at another point). */
  similarCall(a: number, b: number): boolean {
    return this.toolId(a) === this.toolId(b) && argsAlike(this.buf, this.at(a), this.at(b));
  }

  /** Are the two calls one exchange said again (nearness.ts exchangeAlike)? Only `revisit` reads this; "the same result" stays the answer number. */
  exchangeAlike(a: number, b: number): boolean {
    return exchangeAlike(this.buf, this.at(a), this.at(b));
  }

  /** Will the next call still have a call with a word signature that found nothing in the window? */
  foundNothingLately(): boolean {
    return this.lastEmptyAsk > 0 && this.total - this.lastEmptyAsk < this.window - 1;
  }

  /** Do the arguments of the call `back` steps ago have a word signature (short arguments with words)? */
  hasWords(back: number): boolean {
    return this.hasKind(back, KIND_ARGS_WORDS);
  }

  /**
   * Do the calls ask the same thing, in the same or other words, of the same
   * tool or another (see rewordedWords)? Calls without a word signature never do.
   */
  reworded(a: number, b: number): boolean {
    const x = this.at(a);
    const y = this.at(b);
    const buf = this.buf;
    if ((buf[x + F_KIND]! & buf[y + F_KIND]! & KIND_ARGS_WORDS) === 0) return false;
    return rewordedWords(buf, x + F_ARGS_WORDS, y + F_ARGS_WORDS);
  }

  /** Do the calls ask with the very same words and names (both have a word signature), of the same tool or another? */
  sameWords(a: number, b: number): boolean {
    const x = this.at(a);
    const y = this.at(b);
    const buf = this.buf;
    if ((buf[x + F_KIND]! & buf[y + F_KIND]! & KIND_ARGS_WORDS) === 0) return false;
    for (let w = 0; w < SIGNATURE_WORDS; w++) if (buf[x + F_ARGS_WORDS + w] !== buf[y + F_ARGS_WORDS + w]) return false;
    return true;
  }

  /**
   * How many steps before the call `back` steps ago the nearest earlier call
   * like it (same tool, same or near arguments) got the same answer: it
   * asked again for what it had been told. 0 when no such call is in the
   * window any more.
   */
  reaskedFrom(back: number): number {
    const from = (this.buf[this.at(back) + F_KIND]! >>> KIND_REASKED_SHIFT) & 0xff;
    return back + from < this.size ? from : 0;
  }

  /** Was the answer of the call `back` steps ago new when it came (its tool had not given it earlier in the window)? */
  newAnswer(back: number): boolean {
    return (this.buf[this.at(back) + F_TOOL_FLAGS]! & FLAG_ANSWERED_BEFORE) === 0;
  }

  /**
   * Marks the latest call as one that asked again for nothing: the revisit
   * detector's reading of it, kept with the call so that it is made once,
   * not again on every later call while the call is in the window.
   */
  noteAskedAgain(): void {
    const o = this.at(0);
    this.buf[o + F_TOOL_FLAGS] = this.buf[o + F_TOOL_FLAGS]! | FLAG_ASKED_AGAIN;
  }

  /** Did the answer of the call `back` steps ago name what its arguments named (see HistoryEntry.namesSubject)? */
  namesSubject(back: number): boolean {
    return this.hasKind(back, KIND_NAMES_SUBJECT);
  }

  /** How the call `back` steps ago restated an ask (HistoryEntry.restatedAsk): 0 not, 1 the first since an interruption, 2 a later one. */
  restatedAsk(back: number): number {
    return (this.buf[this.at(back) + F_KIND]! >>> KIND_RESTATED_ASK_SHIFT) & 3;
  }

  /** Did the call `back` steps ago come back to a page view seen earlier in the window, other than the one it was on? */
  returnedToPage(back: number): boolean {
    return this.hasKind(back, KIND_RETURNED);
  }

  /** Do the calls' results show the same page view (both show one)? */
  samePage(a: number, b: number): boolean {
    const page = this.buf[this.at(a) + F_PAGE]!;
    return page !== 0 && page === this.buf[this.at(b) + F_PAGE];
  }

  /** Was the call `back` steps ago marked by noteAskedAgain? */
  askedAgain(back: number): boolean {
    return this.hasFlag(back, FLAG_ASKED_AGAIN);
  }

  /** The failure kind recorded for the call `back` steps ago (undefined for no failure or an unknown one). */
  failure(back: number): FailureKind | undefined {
    const kind = this.buf[this.at(back) + F_KIND]!;
    return kind & KIND_TRANSIENT ? 'transient' : kind & KIND_DETERMINISTIC ? 'deterministic' : undefined;
  }

  /** Is the result of the call `back` steps ago this one (16 hex)? Compares the stored words: no string is built. */
  resultIs(back: number, hash: string): boolean {
    const x = this.at(back);
    const result = resultWords.read(hash);
    return this.buf[x + F_RES_HI] === result.hi && this.buf[x + F_RES_LO] === result.lo;
  }

  argsHash(back: number): string {
    const x = this.at(back);
    return hex(this.buf[x + F_ARGS_HI]!, this.buf[x + F_ARGS_LO]!);
  }

  normArgsHash(back: number): string {
    const x = this.at(back);
    return hex(this.buf[x + F_NORM_HI]!, this.buf[x + F_NORM_LO]!);
  }

  resultHash(back: number): string {
    const x = this.at(back);
    return hex(this.buf[x + F_RES_HI]!, this.buf[x + F_RES_LO]!);
  }
}
