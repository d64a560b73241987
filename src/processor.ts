import { SpanStatusCode, type Attributes, type Context, type MeterProvider, type TimeInput } from '@opentelemetry/api';
import { readToolSpan } from './dialects/index.js';
import { COMPLETION_GATE, LoopEngine, type PreVerdict, type RunVerdict } from './engine.js';
import { verifyMessage, type FinishAttempt } from './completion-gate.js';
import type { ModelEvidence } from './detectors/model-turns.js';
import { CallEntries, type CallEnd, type CallFacts, type ResultClassifier } from './call-entry.js';
import { argumentsCutOff } from './cut-off-call.js';
import type { FingerprintOptions } from './fingerprint/index.js';
import { exitReason, isTurnLimitError } from './exit-reason.js';
import type { GuardHost } from './guard-host.js';
import type { HistoryEntry } from './history.js';
import { ModelJudge, type ModelJudgement } from './model-judge.js';
import type { ModelResponse } from './model-span.js';
import { InternalErrors } from './internal-errors.js';
import { resolveDetectionOptions, type DetectionOptions } from './options.js';
import { NO_DECISION, type Decision } from './policy.js';
import { ProcessorMetrics } from './processor-metrics.js';
import * as sc from './semconv.js';
import { addVerdictEvent, annotateCall } from './span-annotations.js';
import { callEndOf, callFactsOf } from './span-call.js';
import type { SpanShape } from './span-shape.js';
import { TraceRuns } from './trace-runs.js';

export interface LoopGuardProcessorOptions extends DetectionOptions {
  /** Where the metrics of DESIGN §4 go. default: the global MeterProvider */
  meterProvider?: MeterProvider;
  /** Called for every decision that should reach someone (throttled warnings, every critical and break). Errors are caught. */
  onDetection?: (detection: Detection) => void;
  /** Clock (epoch ms) for the guard's call times, spans judged before they end, and idle-run eviction (tests). default Date.now */
  now?: () => number;
  /** Told of every error loopguard caught in itself or in a hook of yours (it never throws them into the tracer or your tool calls: the processor, the guard and the hooks onLoop, onDetection, classifyResult all report here); they also go to the diag logger. */
  onInternalError?: (error: unknown) => void;
}

/** A decision on one tool span or model response, as the processor reports it. */
export interface Detection {
  runKey: string;
  traceId: string;
  spanId: string;
  /** The tool of the call; `(model)` for a verdict on a model response. */
  tool: string;
  /** For a model response, `evidence` is empty and `model` says what was found. */
  decision: Decision;
  /** The evidence behind a verdict on a model response (`budget`, `diminishing-returns`, `truncation`, `repeated-answer`). */
  model?: ModelEvidence;
}

/**
 * `LoopGuardSpanProcessor`: put it in any tracer provider (SDK 2.x or 3.x).
 * It recognises tool spans — its own and other instrumentations' — feeds
 * them to the detection engine as they end, writes `loopguard.*` attributes
 * and the `loopguard.loop_detected` event onto the span before it is
 * exported, summarises the run on its root span, and records metrics. The
 * guarded tool wrappers ask it for verdicts before and after each call.
 */
export class LoopGuardSpanProcessor implements GuardHost {
  readonly engine: LoopEngine;
  readonly errors: InternalErrors;
  readonly now: () => number;
  private readonly entries: CallEntries;
  private readonly runs: TraceRuns;
  private readonly models: ModelJudge;
  /**
   * Decisions on spans judged before they ended (a span the guard adopted,
   * a call outside any run) or as they ended, so none is judged twice. The
   * guard's own spans stay out: it ends them through endRecorded, so their
   * end is known to be judged without a look-up (an entry per call cost
   * about 5 % of the guarded call's CPU time).
   */
  private readonly decisions = new WeakMap<SpanShape, Decision>();
  /** The span endRecorded is ending. */
  private endingRecorded: SpanShape | undefined;
  private readonly onDetection: ((d: Detection) => void) | undefined;
  private readonly metrics: ProcessorMetrics;
  private warnedOutsideRun = false;

  constructor(options: LoopGuardProcessorOptions = {}) {
    const { meterProvider, onDetection, now, onInternalError, ...detection } = options;
    this.now = now ?? Date.now;
    this.engine = new LoopEngine(resolveDetectionOptions(detection), this.now);
    this.errors = new InternalErrors(onInternalError);
    this.entries = new CallEntries(this.engine, this.now, this.errors);
    this.runs = new TraceRuns(this.engine);
    this.onDetection = onDetection;
    this.metrics = new ProcessorMetrics(meterProvider, () => this.engine.activeRuns);
    this.models = new ModelJudge({ engine: this.engine, errors: this.errors, metrics: this.metrics, runs: this.runs, onDetection });
  }

  onStart(span: SpanShape, _parentContext?: Context): void {
    try {
      this.runs.start(span);
    } catch (err) {
      this.errors.report('onStart failed', err);
    }
  }

  onEnding(span: SpanShape): void {
    try {
      if (span !== this.endingRecorded) this.evaluate(span);
      this.models.judgeEnding(span);
      if (span.attributes[sc.ATTR_LOOPGUARD_RESPONSE_FINAL] === true) this.gateFinalAnswer(span);
      const runKey = this.runs.closeRoot(span);
      if (runKey !== undefined) this.summarise(span, runKey);
    } catch (err) {
      this.errors.report('onEnding failed', err);
    }
  }

  onEnd(_span: unknown): void {}

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    this.runs.clear();
    return Promise.resolve();
  }

  /** The run a span belongs to: an explicit conversation/session id, else its trace. */
  runKeyOf(span: SpanShape): string | undefined {
    return this.runs.runKeyOf(span);
  }

  ownRunKey(span: SpanShape, extra: Attributes | undefined): string | undefined {
    return this.runs.ownRunKey(span, extra);
  }

  /**
   * Records a call the guard made and already fingerprinted, and annotates
   * its span: the guard's fast path, which skips recognising the span.
   */
  recordCall(span: SpanShape, runKey: string, call: CallFacts, end: CallEnd, classify?: ResultClassifier, own = false): Decision {
    // An adopted span its owner already ended was judged then, from what the owner recorded; so was an own span that
    // the tool's code ended itself (`trace.getActiveSpan().end()`).
    const done = own && span.ended !== true ? undefined : this.decisions.get(span);
    if (done) return done;
    const decision = this.errors.run(
      'recording a tool call failed',
      () => (this.cutOff(span, runKey, call.hasArgs, call.args, end) ? NO_DECISION : this.judge(span, runKey, this.entries.build(runKey, call, end, classify))),
      NO_DECISION,
    );
    if (!own) this.decisions.set(span, decision);
    return decision;
  }

  endRecorded(span: SpanShape & { end(endTime?: TimeInput): void }, endTime?: TimeInput): void {
    this.endingRecorded = span;
    try {
      span.end(endTime);
    } finally {
      this.endingRecorded = undefined;
    }
  }

  precheck(runKey: string, tool: string, argsHash: string, normArgsHash: string): PreVerdict | undefined {
    return this.errors.run('precheck failed', () => this.engine.precheck(runKey, tool, argsHash, normArgsHash), undefined);
  }

  fingerprintOptions(tool: string): FingerprintOptions | undefined {
    return this.engine.options.tools[tool]?.fingerprint;
  }

  steps(runKey: string): number {
    return this.engine.steps(runKey);
  }

  resume(runKey: string): void {
    this.engine.resume(runKey);
  }

  /**
   * Records a tool span in its run and annotates it. Idempotent: the guarded
   * wrapper calls it before ending the span so it can act on the decision;
   * for other spans it runs in `onEnding`.
   */
  evaluate(span: SpanShape): Decision {
    const done = this.decisions.get(span);
    if (done) return done;
    const decision = this.errors.run('evaluating a tool span failed', () => this.evaluateToolSpan(span), NO_DECISION);
    this.decisions.set(span, decision);
    return decision;
  }

  /** Stops a run on behalf of code outside the detectors (an `onLoop` override). */
  stopRun(runKey: string, reason: string): void {
    const already = this.engine.isStopped(runKey);
    this.engine.stop(runKey, reason);
    if (!already) this.metrics.runStopped(reason);
  }

  verdict(runKey: string): RunVerdict | undefined {
    return this.engine.verdict(runKey);
  }

  takeNotice(runKey: string): string | undefined {
    return this.engine.takeNotice(runKey);
  }

  finishAttempt(runKey: string, span: SpanShape | undefined): FinishAttempt {
    const attempt = this.engine.finishAttempt(runKey);
    if (!attempt.ask) return attempt;
    this.metrics.detection(COMPLETION_GATE, 'warning');
    if (span === undefined) return attempt;
    const level = span.attributes[sc.ATTR_LOOPGUARD_LEVEL];
    if (level === undefined) span.setAttribute(sc.ATTR_LOOPGUARD_LEVEL, 'warning');
    addVerdictEvent(span, COMPLETION_GATE, 'warning', attempt.subjects.length);
    return attempt;
  }

  reachTurnLimit(runKey: string): void {
    this.engine.reachTurnLimit(runKey);
  }

  /**
   * A final answer (`loopguard.response.final` on its LLM span) with failed
   * checks still open: the request to verify waits, like any model notice,
   * for the run's next tool result (the re-check the model makes).
   */
  private gateFinalAnswer(span: SpanShape): void {
    const runKey = this.runKeyOf(span);
    if (runKey === undefined) return;
    const attempt = this.finishAttempt(runKey, span);
    if (attempt.ask) this.engine.setNotice(runKey, verifyMessage(attempt.subjects));
  }

  private evaluateToolSpan(span: SpanShape): Decision {
    const view = readToolSpan(span);
    if (!view) return NO_DECISION;
    const runKey = this.runs.toolSpanRunKey(span, view.runKey);
    if (runKey === undefined) {
      this.warnOutsideRun(view.tool);
      return NO_DECISION;
    }
    const end = callEndOf(span, view);
    if (this.cutOff(span, runKey, view.hasArgs, view.args, end)) return NO_DECISION;
    return this.judge(span, runKey, this.entries.build(runKey, callFactsOf(span, view, this.fingerprintOptions(view.tool)), end));
  }

  /**
   * A call whose arguments were cut off right after a truncated response is
   * that response's (src/cut-off-call.ts): marked, and not recorded as a
   * tool call. Without a truncated response before it, it is a failed call
   * like any other, so tool-only traces lose nothing.
   */
  private cutOff(span: SpanShape, runKey: string, hasArgs: boolean, args: unknown, end: CallEnd): boolean {
    if (!this.engine.afterTruncation(runKey) || !argumentsCutOff(hasArgs, args, end)) return false;
    span.setAttribute(sc.ATTR_LOOPGUARD_CALL_CUT_OFF, true);
    return true;
  }

  /** Engine, span annotations and metrics for one recorded call. */
  private judge(span: SpanShape, runKey: string, entry: HistoryEntry): Decision {
    if (entry.subjects !== undefined) entry.subjectsNamed = span.attributes[sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] !== undefined;
    const wasStopped = this.engine.isStopped(runKey) !== undefined;
    const decision = this.engine.record(runKey, entry);
    annotateCall(span, entry, decision, this.engine.tools);
    this.metrics.toolCall(entry.tool, entry.outcome);
    if (decision.level !== undefined && decision.notify) {
      const top = decision.evidence[0]!;
      this.metrics.detection(top.detector, decision.level, entry.tool);
      const onDetection = this.onDetection;
      if (onDetection) {
        const detection = { runKey, traceId: span.spanContext().traceId, spanId: span.spanContext().spanId, tool: entry.tool, decision };
        this.errors.run('onDetection threw', () => onDetection(detection), undefined);
      }
    }
    if (!wasStopped) {
      const stop = this.engine.isStopped(runKey);
      if (stop) this.metrics.runStopped(stop.reason);
    }
    return decision;
  }

  beginModelCall(runKey: string): () => void {
    return this.models.beginCall(runKey);
  }

  endModelCall(runKey: string): void {
    this.models.endCall(runKey);
  }

  recordModelTurn(span: SpanShape, runKey: string, turn: ModelResponse): ModelJudgement {
    return this.models.record(span, runKey, turn);
  }

  /** The run's summary on its root span, as the root ends. */
  private summarise(root: SpanShape, runKey: string): void {
    const verdict = this.engine.verdict(runKey);
    this.models.endRun(runKey);
    if (!verdict) return;
    root.setAttribute(sc.ATTR_LOOPGUARD_RUN_TOOL_CALLS, verdict.toolCalls);
    root.setAttribute(sc.ATTR_LOOPGUARD_RUN_DETECTIONS, verdict.detections);
    root.setAttribute(sc.ATTR_LOOPGUARD_RUN_STOPPED, verdict.stopped);
    if (verdict.level !== null) root.setAttribute(sc.ATTR_LOOPGUARD_RUN_MAX_LEVEL, verdict.level);
    if (verdict.stopReason !== null) root.setAttribute(sc.ATTR_LOOPGUARD_RUN_STOP_REASON, verdict.stopReason);
    const failed = root.status.code === SpanStatusCode.ERROR;
    const errorType = failed ? root.attributes[sc.ATTR_ERROR_TYPE] : undefined;
    const unresolved = this.engine.exportedUnresolved(runKey);
    const reason = exitReason(verdict.stopReason, {
      failed,
      aborted: errorType === 'AbortError',
      turnLimit: isTurnLimitError(errorType) || this.engine.reachedTurnLimit(runKey),
      unresolved: unresolved.length,
    });
    if (unresolved.length > 0) {
      root.setAttribute(sc.ATTR_LOOPGUARD_RUN_UNRESOLVED_FAILURES, unresolved.length);
      root.addEvent(sc.EVENT_LOOPGUARD_UNRESOLVED_FAILURES, { [sc.ATTR_LOOPGUARD_SUBJECTS]: unresolved, [sc.ATTR_LOOPGUARD_COUNT]: unresolved.length });
    }
    root.setAttribute(sc.ATTR_LOOPGUARD_RUN_EXIT_REASON, reason);
    this.metrics.runEnded(reason);
  }

  private warnOutsideRun(tool: string): void {
    if (this.warnedOutsideRun) return;
    this.warnedOutsideRun = true;
    // A process warning, not diag: diag is silent unless the user installed a logger, and this needs reading.
    process.emitWarning(
      `tool "${tool}" ran outside any agent run, so it cannot be checked for loops. ` +
        'Wrap the agent loop in guard.run(name, fn), run it inside a parent span, or set gen_ai.conversation.id on the tool span.',
      { type: 'LoopGuardWarning', code: 'LOOPGUARD_NO_RUN' },
    );
  }
}
