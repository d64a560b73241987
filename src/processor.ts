import {
  metrics,
  SpanStatusCode,
  type Attributes,
  type Context,
  type Counter,
  type MeterProvider,
  type TimeInput,
} from '@opentelemetry/api';
import { publicEvidence } from './breaker.js';
import { readRunKey, readToolSpan, type ToolSpanView } from './dialects/index.js';
import { COMPLETION_GATE, LoopEngine, MODEL_TOOL, type ModelDecision, type PreVerdict, type RunVerdict } from './engine.js';
import { verifyMessage, type FinishAttempt } from './completion-gate.js';
import type { ModelEvidence } from './detectors/model-turns.js';
import { CallEntries, type CallEnd, type CallFacts, type ResultClassifier } from './call-entry.js';
import { argumentsCutOff } from './cut-off-call.js';
import { fingerprintArgs, hashText, type FingerprintOptions } from './fingerprint/index.js';
import { exitReason, isTurnLimitError } from './exit-reason.js';
import type { HistoryEntry } from './history.js';
import { readModelTurn, type ModelResponse } from './model-span.js';
import { buildModelNudge } from './nudge.js';
import { InternalErrors } from './internal-errors.js';
import { resolveDetectionOptions, type DetectionOptions } from './options.js';
import { NO_DECISION, type Decision } from './policy.js';
import * as sc from './semconv.js';
import type { SpanShape } from './span-shape.js';
import { isOutcome } from './types.js';
import { VERSION } from './version.js';

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

/** What the processor decided on one model response, and the message for the model (a notice below warning), if any. */
export interface ModelJudgement extends ModelDecision {
  message: string | undefined;
}

/** Why a call was not executed: set by the wrapper before the span is evaluated. */
export const ACTION_BLOCK = 'block';
export const ACTION_BREAK = 'break';
const ACTION_FOR_LEVEL = { warning: 'nudge', critical: 'block', break: 'break' } as const;

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

interface TraceState {
  runKey: string | undefined;
  root: SpanShape | undefined;
  /** Parents of the LLM spans read as model responses (most recent last, bounded): a parent that is an LLM span too wraps the same response. */
  modelParents?: string[];
}

/** LLM-span parents remembered per trace: a wrapper ends right after the span it wraps, so only the latest few matter. */
const MODEL_PARENTS_KEPT = 16;

const NO_MODEL_JUDGEMENT: ModelJudgement = Object.freeze({ level: undefined, evidence: undefined, message: undefined });

function parentOf(span: SpanShape): string | undefined {
  return span.parentSpanContext?.spanId ?? span.parentSpanId;
}

/** One call for many attributes where the span has it (SDK spans do; SpanShape only promises setAttribute). */
function setAll(span: SpanShape, attributes: Attributes): void {
  const bulk = (span as { setAttributes?: (a: Attributes) => unknown }).setAttributes;
  if (bulk) {
    bulk.call(span, attributes);
    return;
  }
  for (const key in attributes) span.setAttribute(key, attributes[key]!);
}

function stringAttribute(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function toMs(time: readonly [number, number]): number {
  return time[0] * 1e3 + time[1] / 1e6;
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
  private readonly traces = new Map<string, TraceState>();
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
  /** LLM spans already judged: an adapter's response judged in process is not judged again when its span ends. */
  private readonly modelJudgements = new WeakMap<SpanShape, ModelJudgement>();
  /** Per run: model calls in progress whose responses the guard records itself. */
  private readonly recordedCalls = new Map<string, number>();
  private readonly onDetection: ((d: Detection) => void) | undefined;
  private readonly detectionsCounter: Counter;
  private readonly stoppedCounter: Counter;
  private readonly toolCallsCounter: Counter;
  private readonly runsEndedCounter: Counter;
  private warnedOutsideRun = false;

  constructor(options: LoopGuardProcessorOptions = {}) {
    const { meterProvider, onDetection, now, onInternalError, ...detection } = options;
    this.now = now ?? Date.now;
    this.engine = new LoopEngine(resolveDetectionOptions(detection), this.now);
    this.errors = new InternalErrors(onInternalError);
    this.entries = new CallEntries(this.engine, this.now, this.errors);
    this.onDetection = onDetection;
    const meter = (meterProvider ?? metrics).getMeter('loopguard', VERSION);
    this.detectionsCounter = meter.createCounter(sc.METRIC_LOOPGUARD_DETECTIONS, {
      description: 'Loop verdicts that reached the agent (throttled warnings, every critical and break)',
    });
    this.stoppedCounter = meter.createCounter(sc.METRIC_LOOPGUARD_RUNS_STOPPED, { description: 'Agent runs stopped by loopguard' });
    this.toolCallsCounter = meter.createCounter(sc.METRIC_LOOPGUARD_TOOL_CALLS, { description: 'Tool calls seen, by outcome' });
    this.runsEndedCounter = meter.createCounter(sc.METRIC_LOOPGUARD_RUNS_ENDED, { description: 'Agent runs ended, by exit reason' });
    meter
      .createObservableGauge(sc.METRIC_LOOPGUARD_RUNS_ACTIVE, { description: 'Runs tracked by the detection engine' })
      .addCallback((result) => result.observe(this.engine.activeRuns));
  }

  onStart(span: SpanShape, _parentContext?: Context): void {
    try {
      const traceId = span.spanContext().traceId;
      // The guard's own tool spans carry no run hints but the ones it resolves itself (ownRunKey): skip the scan.
      const explicit = span.attributes[sc.ATTR_LOOPGUARD_ARGS_HASH] === undefined ? this.explicitRunKey(span.attributes) : undefined;
      let state = this.traces.get(traceId);
      if (!state) {
        if (this.traces.size >= this.engine.options.maxRuns) this.traces.delete(this.traces.keys().next().value as string);
        state = { runKey: undefined, root: undefined };
        this.traces.set(traceId, state);
      }
      if (parentOf(span) === undefined) {
        state.root = span;
        const budget = span.attributes[sc.ATTR_LOOPGUARD_RUN_MAX_OUTPUT_TOKENS];
        if (typeof budget === 'number' && Number.isInteger(budget) && budget >= 0) this.engine.setOutputBudget(explicit ?? state.runKey ?? traceId, budget);
      }
      if (explicit !== undefined && state.runKey === undefined) {
        state.runKey = explicit;
        // Spans that arrived first (a collector sees the root last) were keyed by the trace.
        this.engine.rekey(traceId, explicit);
      }
    } catch (err) {
      this.errors.report('onStart failed', err);
    }
  }

  onEnding(span: SpanShape): void {
    try {
      if (span !== this.endingRecorded) this.evaluate(span);
      const turn = this.modelTurnOf(span);
      if (turn) this.judgeModelTurn(span, turn);
      if (span.attributes[sc.ATTR_LOOPGUARD_RESPONSE_FINAL] === true) this.gateFinalAnswer(span);
      const state = this.traces.get(span.spanContext().traceId);
      if (state?.root === span) this.summarise(span, state);
    } catch (err) {
      this.errors.report('onEnding failed', err);
    }
  }

  onEnd(_span: unknown): void {}

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    this.traces.clear();
    return Promise.resolve();
  }

  /** The run a span belongs to: an explicit conversation/session id, else its trace. */
  runKeyOf(span: SpanShape): string | undefined {
    return this.runKeyWith(span, this.explicitRunKey(span.attributes));
  }

  /** {@link runKeyOf} with the span's explicit run key already read. */
  private runKeyWith(span: SpanShape, explicit: string | undefined): string | undefined {
    const traceId = span.spanContext().traceId;
    const state = this.traces.get(traceId);
    const key = explicit ?? state?.runKey;
    if (key !== undefined) return key;
    // A tool span that is its own root has no run around it: nothing to compare it with.
    if (parentOf(span) === undefined) return undefined;
    return traceId;
  }

  /**
   * The run of a span the guard made: the key its trace was opened with, or
   * the trace itself. Skips reading the span's attributes for run hints,
   * which only `extra` (the caller's own attributes) can hold.
   */
  ownRunKey(span: SpanShape, extra: Attributes | undefined): string | undefined {
    const explicit = extra === undefined ? undefined : this.explicitRunKey(extra);
    if (explicit !== undefined) return explicit;
    const traceId = span.spanContext().traceId;
    const key = this.traces.get(traceId)?.runKey;
    if (key !== undefined) return key;
    return parentOf(span) === undefined ? undefined : traceId;
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
    if (!already) this.stoppedCounter.add(1, { [sc.METRIC_ATTR_REASON]: reason });
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
    this.detectionsCounter.add(1, { [sc.METRIC_ATTR_DETECTOR]: COMPLETION_GATE, [sc.METRIC_ATTR_LEVEL]: 'warning' });
    if (span === undefined) return attempt;
    const level = span.attributes[sc.ATTR_LOOPGUARD_LEVEL];
    if (level === undefined) span.setAttribute(sc.ATTR_LOOPGUARD_LEVEL, 'warning');
    span.addEvent(sc.EVENT_LOOPGUARD_LOOP_DETECTED, {
      [sc.ATTR_LOOPGUARD_DETECTOR]: COMPLETION_GATE,
      [sc.ATTR_LOOPGUARD_LEVEL]: 'warning',
      [sc.ATTR_LOOPGUARD_COUNT]: attempt.subjects.length,
      [sc.ATTR_LOOPGUARD_PERIOD]: 1,
      [sc.ATTR_LOOPGUARD_ACTION]: ACTION_FOR_LEVEL.warning,
    });
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

  private explicitRunKey(attributes: Attributes): string | undefined {
    const custom = this.engine.options.runKeyAttribute;
    if (custom !== undefined) {
      const value = attributes[custom];
      if (typeof value === 'string' && value !== '') return value;
    }
    return readRunKey(attributes);
  }

  private evaluateToolSpan(span: SpanShape): Decision {
    const view = readToolSpan(span);
    if (!view) return NO_DECISION;
    // The reader already read the run-key attributes; only a custom attribute, which comes first, is left to read.
    const runKey = this.runKeyWith(span, this.engine.options.runKeyAttribute === undefined ? view.runKey : this.explicitRunKey(span.attributes));
    if (runKey === undefined) {
      this.warnOutsideRun(view.tool);
      return NO_DECISION;
    }
    const end = this.endOf(span, view);
    if (this.cutOff(span, runKey, view.hasArgs, view.args, end)) return NO_DECISION;
    return this.judge(span, runKey, this.toEntry(span, view, runKey, end));
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
    this.annotate(span, entry, decision);
    this.toolCallsCounter.add(1, { [sc.ATTR_GEN_AI_TOOL_NAME]: entry.tool, [sc.METRIC_ATTR_OUTCOME]: entry.outcome });
    if (decision.level !== undefined && decision.notify) {
      const top = decision.evidence[0]!;
      this.detectionsCounter.add(1, {
        [sc.METRIC_ATTR_DETECTOR]: top.detector,
        [sc.METRIC_ATTR_LEVEL]: decision.level,
        [sc.ATTR_GEN_AI_TOOL_NAME]: entry.tool,
      });
      const onDetection = this.onDetection;
      if (onDetection) {
        const detection = { runKey, traceId: span.spanContext().traceId, spanId: span.spanContext().spanId, tool: entry.tool, decision };
        this.errors.run('onDetection threw', () => onDetection(detection), undefined);
      }
    }
    if (!wasStopped) {
      const stop = this.engine.isStopped(runKey);
      if (stop) this.stoppedCounter.add(1, { [sc.METRIC_ATTR_REASON]: stop.reason });
    }
    return decision;
  }

  /** What the span tells of its call, for the entry builder; hashes arguments the span's maker did not. */
  private toEntry(span: SpanShape, view: ToolSpanView, runKey: string, end: CallEnd): HistoryEntry {
    const a = span.attributes;
    const fingerprint = this.fingerprintOptions(view.tool);
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
    const call: CallFacts = {
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
    return this.entries.build(runKey, call, end);
  }

  /** How the span's call ended: a result hashed by the span's maker wins, then a failure, then the result itself. */
  private endOf(span: SpanShape, view: ToolSpanView): CallEnd {
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

  /**
   * The model response an LLM span records, once: undefined for other spans,
   * for a span around one already counted, and for a model call that failed
   * (status ERROR or an `error.type`: refused, rate-limited, timed out). A
   * failed call got no response: it is nothing to the model detectors, so it
   * neither ends a truncation streak nor counts as a continuation.
   */
  private modelTurnOf(span: SpanShape): ModelResponse | undefined {
    if (span.status.code === SpanStatusCode.ERROR || span.attributes[sc.ATTR_ERROR_TYPE] !== undefined) return undefined;
    const turn = readModelTurn(span.attributes);
    return turn && !this.modelJudgements.has(span) && !this.wrapsCountedTurn(span) ? turn : undefined;
  }

  private judgeModelTurn(span: SpanShape, turn: ModelResponse): void {
    if (turn.computed) setAll(span, turn.computed);
    const runKey = this.runKeyOf(span);
    if (runKey === undefined || this.recordedCalls.has(runKey)) return;
    this.recordModelTurn(span, runKey, turn);
  }

  beginModelCall(runKey: string): () => void {
    this.recordedCalls.set(runKey, (this.recordedCalls.get(runKey) ?? 0) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.endModelCall(runKey);
    };
  }

  endModelCall(runKey: string): void {
    const left = (this.recordedCalls.get(runKey) ?? 1) - 1;
    if (left > 0) this.recordedCalls.set(runKey, left);
    else this.recordedCalls.delete(runKey);
  }

  recordModelTurn(span: SpanShape, runKey: string, turn: ModelResponse): ModelJudgement {
    const done = this.modelJudgements.get(span);
    if (done) return done;
    const judgement = this.errors.run('recording a model response failed', () => this.judgeModel(span, runKey, turn), NO_MODEL_JUDGEMENT);
    this.modelJudgements.set(span, judgement);
    return judgement;
  }

  private judgeModel(span: SpanShape, runKey: string, turn: ModelResponse): ModelJudgement {
    this.countTokens(runKey, turn);
    const wasStopped = this.engine.isStopped(runKey) !== undefined;
    const decision = this.engine.recordModel(runKey, turn);
    const e = decision.evidence;
    if (decision.level !== undefined) span.setAttribute(sc.ATTR_LOOPGUARD_LEVEL, decision.level);
    if (e === undefined) return { ...decision, message: undefined };
    const o = this.engine.options;
    const message = buildModelNudge({ level: decision.level, evidence: e, maxOutputTokens: e.budget, maxTruncations: o.maxTruncations });
    this.engine.setNotice(runKey, message);
    if (decision.level === undefined) {
      span.addEvent(sc.EVENT_LOOPGUARD_NOTICE, { [sc.ATTR_LOOPGUARD_DETECTOR]: e.detector, [sc.ATTR_LOOPGUARD_COUNT]: Math.floor(e.score) });
      return { ...decision, message };
    }
    span.addEvent(sc.EVENT_LOOPGUARD_LOOP_DETECTED, {
      [sc.ATTR_LOOPGUARD_DETECTOR]: e.detector,
      [sc.ATTR_LOOPGUARD_LEVEL]: decision.level,
      [sc.ATTR_LOOPGUARD_COUNT]: Math.floor(e.score),
      [sc.ATTR_LOOPGUARD_PERIOD]: 1,
      [sc.ATTR_LOOPGUARD_ACTION]: ACTION_FOR_LEVEL[decision.level],
    });
    this.detectionsCounter.add(1, { [sc.METRIC_ATTR_DETECTOR]: e.detector, [sc.METRIC_ATTR_LEVEL]: decision.level });
    if (!wasStopped && decision.level === 'break') this.stoppedCounter.add(1, { [sc.METRIC_ATTR_REASON]: e.detector });
    const onDetection = this.onDetection;
    if (onDetection) {
      const verdict: Decision = { step: this.engine.steps(runKey), level: decision.level, evidence: [], notify: true };
      const detection: Detection = { runKey, traceId: span.spanContext().traceId, spanId: span.spanContext().spanId, tool: MODEL_TOOL, decision: verdict, model: e };
      this.errors.run('onDetection threw', () => onDetection(detection), undefined);
    }
    return { ...decision, message };
  }

  /**
   * One response, two LLM spans: a framework's span around the provider
   * client's (OpenInference's LangChain and OpenAI instrumentations both on).
   * The inner one ends first and is counted; the wrapper is skipped.
   */
  private wrapsCountedTurn(span: SpanShape): boolean {
    const state = this.traces.get(span.spanContext().traceId);
    if (!state) return false;
    const parents = (state.modelParents ??= []);
    if (parents.includes(span.spanContext().spanId)) return true;
    const parent = parentOf(span);
    if (parent !== undefined) {
      parents.push(parent);
      if (parents.length > MODEL_PARENTS_KEPT) parents.shift();
    }
    return false;
  }

  private annotate(span: SpanShape, entry: HistoryEntry, decision: Decision): void {
    if (decision.step === 0) return;
    const attributes: Attributes = {
      [sc.ATTR_LOOPGUARD_STEP]: decision.step,
      [sc.ATTR_LOOPGUARD_RESULT_HASH]: entry.resultHash,
      [sc.ATTR_LOOPGUARD_CALL_FINGERPRINT]: `${entry.tool}:${entry.argsHash}`,
      [sc.ATTR_LOOPGUARD_OUTCOME]: entry.outcome,
    };
    if (entry.shapeHash !== undefined) attributes[sc.ATTR_LOOPGUARD_ARGS_SHAPE_HASH] = entry.shapeHash;
    if (entry.resultSketch !== undefined) attributes[sc.ATTR_LOOPGUARD_RESULT_SKETCH] = entry.resultSketch;
    if (entry.pageState !== undefined) attributes[sc.ATTR_LOOPGUARD_RESULT_PAGE] = entry.pageState;
    if (entry.argsWords !== undefined) attributes[sc.ATTR_LOOPGUARD_ARGS_WORDS] = entry.argsWords;
    if (entry.failure !== undefined) attributes[sc.ATTR_LOOPGUARD_FAILURE] = entry.failure;
    if (decision.level !== undefined) attributes[sc.ATTR_LOOPGUARD_LEVEL] = decision.level;
    setAll(span, attributes);
    if (decision.level === undefined || !decision.notify) return;
    const top = decision.evidence[0]!;
    const evidence = publicEvidence(top, this.engine.tools.name(top.toolId));
    span.addEvent(sc.EVENT_LOOPGUARD_LOOP_DETECTED, {
      [sc.ATTR_LOOPGUARD_DETECTOR]: evidence.detector,
      [sc.ATTR_LOOPGUARD_LEVEL]: decision.level,
      [sc.ATTR_LOOPGUARD_COUNT]: evidence.count,
      [sc.ATTR_LOOPGUARD_PERIOD]: evidence.period,
      [sc.ATTR_LOOPGUARD_FINGERPRINT]: evidence.fingerprint,
      [sc.ATTR_LOOPGUARD_ACTION]: ACTION_FOR_LEVEL[decision.level],
    });
  }

  private summarise(root: SpanShape, state: TraceState): void {
    const runKey = state.runKey ?? root.spanContext().traceId;
    const verdict = this.engine.verdict(runKey);
    this.traces.delete(root.spanContext().traceId);
    // A model call that failed before its end was reported leaves its mark: it ends with the run.
    this.recordedCalls.delete(runKey);
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
    this.runsEndedCounter.add(1, { [sc.METRIC_ATTR_REASON]: reason });
  }

  /**
   * The total-token fuse counts each response once, from its LLM span:
   * agent, step and chain spans repeat the sums of the responses under them.
   */
  /** The total-token fuse: each response counted once, where it is judged. */
  private countTokens(runKey: string, turn: ModelResponse): void {
    if (this.engine.options.maxTokens === 0) return;
    const tokens = turn.inputTokens + turn.outputTokens;
    if (tokens > 0) this.engine.addTokens(runKey, tokens);
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
