import type { Attributes, TimeInput } from '@opentelemetry/api';
import type { CallEnd, CallFacts, ResultClassifier } from './call-entry.js';
import type { FinishAttempt } from './completion-gate.js';
import type { PreVerdict, RunVerdict } from './engine.js';
import type { FingerprintOptions } from './fingerprint/index.js';
import type { InternalErrors } from './internal-errors.js';
import type { ModelJudgement } from './model-judge.js';
import type { ModelResponse } from './model-span.js';
import type { Decision } from './policy.js';
import type { SpanShape } from './span-shape.js';

/**
 * What the guard needs of the span processor: runs, verdicts before a call,
 * recording a call it made, and the error channel. The engine behind it
 * stays private to the processor.
 */
export interface GuardHost {
  /** Where the guard reports what it caught in itself: the processor's diag channel and `onInternalError`. */
  readonly errors: InternalErrors;
  /** The processor's clock (epoch ms). */
  now(): number;
  /** The tool's fingerprint settings, resolved with the options. */
  fingerprintOptions(tool: string): FingerprintOptions | undefined;
  /** The run of a span the guard made (see the method). */
  ownRunKey(span: SpanShape, extra: Attributes | undefined): string | undefined;
  /** The run of any span. */
  runKeyOf(span: SpanShape): string | undefined;
  /** Before a call runs: is its run stopped, or would the call continue a pattern armed for blocking? */
  precheck(runKey: string, tool: string, argsHash: string, normArgsHash: string): PreVerdict | undefined;
  /**
   * Records a call the guard made and annotates its span. `own`: the guard
   * made the span and ends it with `endRecorded`.
   */
  recordCall(span: SpanShape, runKey: string, call: CallFacts, end: CallEnd, classify?: ResultClassifier, own?: boolean): Decision;
  /** Ends a span of the guard's own that `recordCall` recorded: its end is not judged again. */
  endRecorded(span: SpanShape & { end(endTime?: TimeInput): void }, endTime?: TimeInput): void;
  /** Records any tool span (a call outside a run the guard resolved). */
  evaluate(span: SpanShape): Decision;
  /** Calls recorded in the run so far. */
  steps(runKey: string): number;
  stopRun(runKey: string, reason: string): void;
  /** Lifts a stop (an `onLoop` override answered 'continue' to a break). */
  resume(runKey: string): void;
  verdict(runKey: string): RunVerdict | undefined;
  /** A message about the model side (budget, truncations) waiting for the run's next tool result; handed out once. */
  takeNotice(runKey: string): string | undefined;
  /** The run is about to finish: the completion gate's answer, with its warning (if it asks) recorded on `span`. */
  finishAttempt(runKey: string, span: SpanShape | undefined): FinishAttempt;
  /** The framework's own turn limit ended the run (exit reason `max_turns`). */
  reachTurnLimit(runKey: string): void;
  /** Records a model response seen in process on its LLM span (once per span) and judges it. */
  recordModelTurn(span: SpanShape, runKey: string, turn: ModelResponse): ModelJudgement;
  /**
   * A model call whose response the guard records itself is in progress in
   * the run: LLM spans of the run that end meanwhile (another
   * instrumentation's span of the same call) are not counted again. Call the
   * returned function when the call is over.
   */
  beginModelCall(runKey: string): () => void;
  /** Ends one mark of `beginModelCall` for a framework that reports the end of the call in another hook than the one that began it. */
  endModelCall(runKey: string): void;
}
