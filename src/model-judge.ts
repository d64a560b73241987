import { SpanStatusCode } from '@opentelemetry/api';
import { MODEL_TOOL, type LoopEngine, type ModelDecision } from './engine.js';
import type { InternalErrors } from './internal-errors.js';
import { readModelTurn, type ModelResponse } from './model-span.js';
import { buildModelNudge } from './nudge.js';
import type { Decision } from './policy.js';
import type { Detection } from './processor.js';
import type { ProcessorMetrics } from './processor-metrics.js';
import * as sc from './semconv.js';
import { addVerdictEvent, setAll } from './span-annotations.js';
import type { SpanShape } from './span-shape.js';
import type { TraceRuns } from './trace-runs.js';

/** What the processor decided on one model response, and the message for the model (a notice below warning), if any. */
export interface ModelJudgement extends ModelDecision {
  message: string | undefined;
}

const NO_MODEL_JUDGEMENT: ModelJudgement = Object.freeze({ level: undefined, evidence: undefined, message: undefined });

/** What the processor lends the model judge. */
export interface ModelJudgeDeps {
  engine: LoopEngine;
  errors: InternalErrors;
  metrics: ProcessorMetrics;
  runs: TraceRuns;
  onDetection: ((d: Detection) => void) | undefined;
}

/**
 * Model responses, each judged once by the model detectors: an LLM span as
 * it ends, or a response a framework adapter hands the guard in process
 * (then the LLM spans of the same call are not counted again). A verdict is
 * written on the span, counted, told to `onDetection`, and its message
 * waits for the run's next tool result.
 */
export class ModelJudge {
  /** LLM spans already judged: an adapter's response judged in process is not judged again when its span ends. */
  private readonly judgements = new WeakMap<SpanShape, ModelJudgement>();
  /** Per run: model calls in progress whose responses the guard records itself. */
  private readonly recordedCalls = new Map<string, number>();

  constructor(private readonly deps: ModelJudgeDeps) {}

  /** An ending span: judges the model response it records, if it is one not counted yet. */
  judgeEnding(span: SpanShape): void {
    const turn = this.modelTurnOf(span);
    if (!turn) return;
    if (turn.computed) setAll(span, turn.computed);
    const runKey = this.deps.runs.runKeyOf(span);
    if (runKey === undefined || this.recordedCalls.has(runKey)) return;
    this.record(span, runKey, turn);
  }

  beginCall(runKey: string): () => void {
    this.recordedCalls.set(runKey, (this.recordedCalls.get(runKey) ?? 0) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.endCall(runKey);
    };
  }

  endCall(runKey: string): void {
    const left = (this.recordedCalls.get(runKey) ?? 1) - 1;
    if (left > 0) this.recordedCalls.set(runKey, left);
    else this.recordedCalls.delete(runKey);
  }

  /** A model call that failed before its end was reported leaves its mark: it ends with the run. */
  endRun(runKey: string): void {
    this.recordedCalls.delete(runKey);
  }

  record(span: SpanShape, runKey: string, turn: ModelResponse): ModelJudgement {
    const done = this.judgements.get(span);
    if (done) return done;
    const judgement = this.deps.errors.run('recording a model response failed', () => this.judge(span, runKey, turn), NO_MODEL_JUDGEMENT);
    this.judgements.set(span, judgement);
    return judgement;
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
    return turn && !this.judgements.has(span) && !this.deps.runs.wrapsCountedTurn(span) ? turn : undefined;
  }

  private judge(span: SpanShape, runKey: string, turn: ModelResponse): ModelJudgement {
    const { engine, metrics } = this.deps;
    this.countTokens(runKey, turn);
    const wasStopped = engine.isStopped(runKey) !== undefined;
    const decision = engine.recordModel(runKey, turn);
    const e = decision.evidence;
    if (decision.level !== undefined) span.setAttribute(sc.ATTR_LOOPGUARD_LEVEL, decision.level);
    if (e === undefined) return { ...decision, message: undefined };
    const o = engine.options;
    const message = buildModelNudge({ level: decision.level, evidence: e, maxOutputTokens: e.budget, maxTruncations: o.maxTruncations });
    engine.setNotice(runKey, message);
    if (decision.level === undefined) {
      span.addEvent(sc.EVENT_LOOPGUARD_NOTICE, { [sc.ATTR_LOOPGUARD_DETECTOR]: e.detector, [sc.ATTR_LOOPGUARD_COUNT]: Math.floor(e.score) });
      return { ...decision, message };
    }
    addVerdictEvent(span, e.detector, decision.level, Math.floor(e.score));
    metrics.detection(e.detector, decision.level);
    if (!wasStopped && decision.level === 'break') metrics.runStopped(e.detector);
    const onDetection = this.deps.onDetection;
    if (onDetection) {
      const verdict: Decision = { step: engine.steps(runKey), level: decision.level, evidence: [], notify: true };
      const detection: Detection = { runKey, traceId: span.spanContext().traceId, spanId: span.spanContext().spanId, tool: MODEL_TOOL, decision: verdict, model: e };
      this.deps.errors.run('onDetection threw', () => onDetection(detection), undefined);
    }
    return { ...decision, message };
  }

  /**
   * The total-token fuse counts each response once, from its LLM span:
   * agent, step and chain spans repeat the sums of the responses under them.
   */
  private countTokens(runKey: string, turn: ModelResponse): void {
    if (this.deps.engine.options.maxTokens === 0) return;
    const tokens = turn.inputTokens + turn.outputTokens;
    if (tokens > 0) this.deps.engine.addTokens(runKey, tokens);
  }
}
