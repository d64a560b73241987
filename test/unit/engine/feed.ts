import { LoopEngine } from '../../../src/engine.js';
import { argsDigitShape, argsWordSignature, canonicalize, errorDigest, fingerprintArgs, hashText, pageStateHash, pendingAnswerShape, textSketch } from '../../../src/fingerprint/index.js';
import { itemSetHash } from '../../../src/fingerprint/item-set.js';
import { resolveDetectionOptions, type DetectionOptions } from '../../../src/options.js';
import type { FailureKind, Outcome } from '../../../src/types.js';

/** A call as tests write it: arguments and results are short strings standing for their JSON. */
export interface Call {
  tool: string;
  args?: string;
  norm?: string;
  result?: string;
  outcome?: Outcome;
  informative?: boolean;
  namesId?: boolean;
  /** The arguments name a file (an edit's `path`). */
  acknowledgedWork?: boolean;
  /** The answer is a piece of the call's own arguments handed back (`echo 'Done again.'` answered `Done again.`). */
  echoesArgs?: boolean;
  /** The call swapped in an item an earlier result listed (the processor reads it off src/listed-items.ts). */
  takesListedItem?: boolean;
  /** A conversation turn: the message said and the reply (the processor reads it off src/standing-ask.ts conversationMessage). */
  turn?: { message: string; reply: string };
  /** Stands for the arguments' shape (digits folded), when the processor would have computed one. */
  shape?: string;
  /** The answer names what the arguments named (the processor reads it off fingerprint answerNamesSubject). */
  namesSubject?: boolean;
  /** The result's value, whose items the processor reads as a set (fingerprint item-set.ts). */
  items?: unknown;
  /** The result as text: hashed and sketched as the processor would (instead of `result`). */
  text?: string;
  /** The message of a thrown failure: digested as the processor would (instead of `result`, `outcome` and `failure`). */
  failureText?: string;
  failure?: FailureKind;
  /** The arguments as the processor sees them: hashed and sketched as it would (instead of `args` and `norm`). */
  argsValue?: unknown;
  /** How long the call took (a `sleep 90` lasts 90 000). */
  durationMs?: number;
  /** When the call started, in ms from the run's start (default 0). */
  startMs?: number;
}

/** Feeds calls to a fresh engine the way the processor does, and returns each call's level. */
export function feed(calls: Call[], options: DetectionOptions = {}, engine = new LoopEngine(resolveDetectionOptions(options))) {
  const levels: Array<string | undefined> = [];
  const detectors: Array<string | undefined> = [];
  for (const c of calls) {
    const argsHash = hashText(`${c.tool}|${c.args ?? ''}`);
    const fp = c.argsValue === undefined ? undefined : fingerprintArgs(c.argsValue);
    const failed = c.failureText === undefined ? undefined : errorDigest('ToolError', c.failureText);
    const resultHash = failed?.hash ?? (c.text === undefined ? hashText(c.result ?? '') : hashText(canonicalize(c.text)));
    const outcome = failed !== undefined ? 'error' : (c.outcome ?? 'ok');
    const args = fp?.argsHash ?? argsHash;
    // As the processor decides (src/call-entry.ts): only a call told what other arguments were told may be a resend in other words.
    const resent = c.informative === true && outcome !== 'empty' && engine.answeredOtherArgs('run', c.tool, args, resultHash);
    const d = engine.record('run', {
      tool: c.tool,
      argsHash: args,
      normArgsHash: fp?.normArgsHash ?? (c.norm === undefined ? argsHash : hashText(`${c.tool}|${c.norm}`)),
      argsSketch: fp?.argsSketch,
      argsWords: fp === undefined || !(outcome === 'empty' || resent || engine.foundNothingLately('run')) ? undefined : argsWordSignature(c.argsValue, fp.argsSketch),
      digitShapeHash: fp === undefined || !resent ? undefined : argsDigitShape(c.argsValue, fp.argsSketch),
      resultHash,
      resultSketch: failed !== undefined ? failed.sketch : c.text === undefined ? undefined : textSketch(canonicalize(c.text)),
      pageState: c.text === undefined ? undefined : pageStateHash(c.text),
      failure: failed?.failure ?? c.failure ?? (c.outcome === 'error' ? 'transient' : undefined),
      outcome,
      informative: c.informative,
      namesId: c.namesId,
      acknowledgedWork: c.acknowledgedWork,
      echoesArgs: c.echoesArgs,
      takesListedItem: c.takesListedItem,
      turn: c.turn === undefined ? undefined : { ...c.turn, argsText: undefined },
      namesSubject: c.namesSubject,
      itemSetHash: c.items === undefined ? undefined : itemSetHash(c.items),
      shapeHash: c.shape === undefined ? undefined : hashText(c.shape),
      // As the processor decides: only a pending answer it read as text gets its handle-folded shape.
      pendingShape: outcome === 'pending' && c.text !== undefined ? pendingAnswerShape(canonicalize(c.text)) : undefined,
      blocked: false,
      startMs: c.startMs ?? 0,
      endMs: (c.startMs ?? 0) + (c.durationMs ?? 0),
    });
    levels.push(d.level);
    detectors.push(d.evidence[0]?.detector);
  }
  return { levels, detectors, engine, firstWarning: levels.findIndex((l) => l !== undefined) + 1 || null };
}

export function times<T>(n: number, item: T | ((i: number) => T)): T[] {
  return Array.from({ length: n }, (_, i) => (typeof item === 'function' ? (item as (i: number) => T)(i) : item));
}
