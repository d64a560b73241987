import { SpanStatusCode } from '@opentelemetry/api';
import type { CallEnd, CallFacts } from './call-entry.js';
import type { ToolSpanView } from './dialects/index.js';
import { fingerprintArgs, hashText, type FingerprintOptions } from './fingerprint/index.js';
import * as sc from './semconv.js';
import type { SpanShape } from './span-shape.js';
import { ACTION_BLOCK, ACTION_BREAK } from './span-annotations.js';
import { isOutcome } from './types.js';

/** A result hash for a call whose result nobody recorded: unique, so it can never look like a repeat. */
export function unrecordedResult(spanId: string): string {
  return hashText(`loopguard:unrecorded:${spanId}`);
}
/** The arguments hash of a call whose arguments nobody recorded: its tool name is all that tells it from others. */
export const NAME_ONLY_ARGS = hashText('loopguard:unrecorded-args');

/** What `loopguard.input` says of a call whose arguments or result were not all seen. */
export function inputSeen(hasArgs: boolean, hasResult: boolean): string {
  return hasArgs ? (hasResult ? 'full' : 'args') : hasResult ? 'result' : 'name_only';
}

function stringAttribute(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function toMs(time: readonly [number, number]): number {
  return time[0] * 1e3 + time[1] / 1e6;
}

/** What the span tells of its call, for the entry builder; hashes arguments the span's maker did not. */
export function callFactsOf(span: SpanShape, view: ToolSpanView, fingerprint: FingerprintOptions | undefined): CallFacts {
  const a = span.attributes;
  const ownArgs = a[sc.ATTR_LOOPGUARD_ARGS_HASH];
  const ownNorm = a[sc.ATTR_LOOPGUARD_NORM_ARGS_HASH];
  let argsHash: string;
  let normArgsHash: string;
  let argsSketch: string | undefined;
  let argsWords: string | undefined;
  // Arguments hashed by the span's maker are not serialised again: the listed-items rule reads the text of those it hashed.
  let argsText: string | undefined;
  if (typeof ownArgs === 'string') {
    argsHash = ownArgs;
    normArgsHash = typeof ownNorm === 'string' ? ownNorm : ownArgs;
    argsSketch = stringAttribute(a[sc.ATTR_LOOPGUARD_ARGS_SKETCH]);
    argsWords = stringAttribute(a[sc.ATTR_LOOPGUARD_ARGS_WORDS]);
  } else if (view.hasArgs) {
    const fp = fingerprintArgs(view.args, fingerprint);
    argsHash = fp.argsHash;
    normArgsHash = fp.normArgsHash;
    argsSketch = fp.argsSketch;
    argsText = fp.argsText;
    span.setAttribute(sc.ATTR_LOOPGUARD_ARGS_HASH, argsHash);
    if (normArgsHash !== argsHash) span.setAttribute(sc.ATTR_LOOPGUARD_NORM_ARGS_HASH, normArgsHash);
    if (argsSketch !== undefined) span.setAttribute(sc.ATTR_LOOPGUARD_ARGS_SKETCH, argsSketch);
  } else {
    argsHash = NAME_ONLY_ARGS;
    normArgsHash = NAME_ONLY_ARGS;
    span.setAttribute(sc.ATTR_LOOPGUARD_ARGS_HASH, argsHash);
  }
  if (view.dialect !== 'loopguard') {
    span.setAttribute(sc.ATTR_LOOPGUARD_INPUT, inputSeen(view.hasArgs, view.hasResult));
  }
  const action = a[sc.ATTR_LOOPGUARD_ACTION];
  const ownShape = a[sc.ATTR_LOOPGUARD_ARGS_SHAPE_HASH];
  return {
    tool: view.tool,
    argsHash,
    normArgsHash,
    argsSketch,
    argsWords,
    hasArgs: view.hasArgs,
    args: view.hasArgs ? view.args : undefined,
    argsText,
    startMs: toMs(span.startTime),
    // A span judged before it ends (the guard's) has no end time yet.
    endMs: span.endTime[0] === 0 && span.endTime[1] === 0 ? undefined : toMs(span.endTime),
    shapeHash: typeof ownShape === 'string' ? ownShape : undefined,
    blocked: action === ACTION_BLOCK || action === ACTION_BREAK,
    fingerprint,
  };
}

/** How the span's call ended: a result hashed by the span's maker wins, then a failure, then the result itself. */
export function callEndOf(span: SpanShape, view: ToolSpanView): CallEnd {
  const a = span.attributes;
  const failed = span.status.code === SpanStatusCode.ERROR;
  const declared = a[sc.ATTR_LOOPGUARD_OUTCOME];
  const outcome = isOutcome(declared) ? declared : undefined;
  const ownResult = a[sc.ATTR_LOOPGUARD_RESULT_HASH];
  if (typeof ownResult === 'string') {
    const failure = a[sc.ATTR_LOOPGUARD_FAILURE];
    return {
      kind: 'hashed',
      resultHash: ownResult,
      outcome: outcome ?? (failed ? 'error' : 'ok'),
      resultSketch: stringAttribute(a[sc.ATTR_LOOPGUARD_RESULT_SKETCH]),
      pageState: stringAttribute(a[sc.ATTR_LOOPGUARD_RESULT_PAGE]),
      failure: failure === 'transient' || failure === 'deterministic' ? failure : undefined,
    };
  }
  if (failed) {
    const errorType = a[sc.ATTR_ERROR_TYPE];
    const retryable = a[sc.ATTR_LOOPGUARD_ERROR_RETRYABLE];
    return {
      kind: 'failed',
      errorType: typeof errorType === 'string' ? errorType : undefined,
      message: span.status.message,
      retryable: typeof retryable === 'boolean' ? retryable : undefined,
    };
  }
  if (view.hasResult) return { kind: 'returned', result: view.result, outcome };
  return { kind: 'hashed', resultHash: unrecordedResult(span.spanContext().spanId), outcome: outcome ?? 'ok' };
}
