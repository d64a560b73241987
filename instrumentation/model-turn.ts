import { SpanKind, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { LoopBreakError, type LoopEvidence } from '../src/breaker.js';
import type { ModelEvidence } from '../src/detectors/model-turns.js';
import { MODEL_TOOL } from '../src/engine.js';
import { outputTextAttributes, readModelTurn } from '../src/model-span.js';
import type { GuardHost } from '../src/guard-host.js';
import type { ModelJudgement } from '../src/model-judge.js';
import * as sc from '../src/semconv.js';
import type { SpanShape } from '../src/span-shape.js';
import { captureAttribute, type ResolvedCapture } from './capture.js';
import { decideAction, defaultAction, type LoopAction } from './loop-action.js';
import type { LoopEvent } from './loop-event.js';

/** One model response as a framework adapter saw it in process. */
export interface ModelResponse {
  /** Output tokens the provider reported for this response. */
  outputTokens?: number;
  inputTokens?: number;
  /** The provider's finish reason as reported (`stop`, `length`, `tool_calls`, `max_tokens`...). */
  finishReason?: string;
  /** The response's text: only its similarity sketch is recorded, the text itself only when `captureContent` allows. */
  text?: string;
  /** The model's name, for the span name. */
  model?: string;
}

export interface ModelResponseInfo {
  /**
   * The framework's own LLM span for this response, still open: it gets the
   * attributes the processor reads instead of a second span being made, so
   * the response is counted once.
   */
  span?: Span;
  /** Extra attributes for the span (the adapter's `loopguard.framework`). */
  attributes?: Attributes;
}

/** What the guard lends the model-turn recorder. */
export interface ModelTurnDeps {
  tracer: Tracer;
  host: GuardHost;
  capture: ResolvedCapture | undefined;
  /** Asks `onLoop`; undefined: the default action applies. */
  consult: (event: LoopEvent) => Promise<LoopAction | undefined>;
  /** Whether loopguard may write messages where the model reads them (`appendNudge`). */
  deliver: boolean;
}

/**
 * Model responses seen in process by the framework adapters: each becomes
 * one LLM span of the run (or stamps the framework's own), judged by the
 * processor like any LLM span; `onLoop` is consulted on its verdicts as on a
 * tool call's. Nothing here throws but the documented LoopBreakError.
 */
export class ModelTurns {
  constructor(private readonly deps: ModelTurnDeps) {}

  /**
   * Records a response of the active run. Resolves to the LoopBreakError the
   * adapter should fail the model call with when the response stopped the
   * run, else undefined. The span work is synchronous: a framework span
   * handed in is judged before its owner's next hook can end it.
   */
  record(response: ModelResponse, info: ModelResponseInfo = {}): Promise<LoopBreakError | undefined> {
    const { host } = this.deps;
    const judged = host.errors.run('recording a model response failed', () => this.judge(response, info), undefined);
    if (!judged) return Promise.resolve(undefined);
    return host.errors.runAsync('acting on a model verdict failed', () => this.act(judged), undefined);
  }

  /** The message waiting for the active run's next model call (budget notice, truncation recovery, nudge), once. */
  takeMessage(): string | undefined {
    if (!this.deps.deliver) return undefined;
    const runKey = this.activeRunKey();
    if (runKey === undefined) return undefined;
    return this.deps.host.errors.run('reading the model notice failed', () => this.deps.host.takeNotice(runKey), undefined);
  }

  /**
   * Marks a model call of the active run whose response the adapter records
   * itself: another instrumentation's LLM span of the same call (an LLM
   * client instrumentation inside it) is then not counted a second time.
   * Returns the function that ends the mark.
   */
  beginCall(): () => void {
    const runKey = this.activeRunKey();
    if (runKey === undefined) return noop;
    return this.deps.host.errors.run('marking a model call failed', () => this.deps.host.beginModelCall(runKey), noop);
  }

  /**
   * Ends one mark of `beginCall` in the active run, for a framework whose
   * hooks around a model call are separate callbacks (ai@6's step start and
   * finish): the mark is left open by `beginCall`'s caller and ended here.
   */
  endCall(): void {
    const runKey = this.activeRunKey();
    if (runKey === undefined) return;
    this.deps.host.errors.run('unmarking a model call failed', () => this.deps.host.endModelCall(runKey), undefined);
  }

  /** The LoopBreakError a model call of the active run must fail with, when loopguard has stopped the run. */
  stopped(): LoopBreakError | undefined {
    const runKey = this.activeRunKey();
    if (runKey === undefined) return undefined;
    const verdict = this.deps.host.verdict(runKey);
    if (!verdict?.stopped) return undefined;
    const reason = verdict.stopReason ?? 'loop';
    const span = trace.getActiveSpan();
    return new LoopBreakError(`[loopguard break] The run was stopped (${reason}).`, {
      reason,
      detector: reason,
      level: 'break',
      evidence: undefined,
      traceId: span?.spanContext().traceId ?? '',
      runKey,
      step: verdict.toolCalls,
      tool: MODEL_TOOL,
    });
  }

  private judge(response: ModelResponse, info: ModelResponseInfo): { span: SpanShape; runKey: string; judgement: ModelJudgement } | undefined {
    const { host } = this.deps;
    const adopted = info.span?.isRecording() ? (info.span as Span & Partial<SpanShape>) : undefined;
    const attributes = this.attributesOf(response, info.attributes, adopted === undefined);
    const span = (adopted ?? this.deps.tracer.startSpan(`${sc.GEN_AI_OPERATION_CHAT}${response.model ? ` ${response.model}` : ''}`, { kind: SpanKind.CLIENT, attributes })) as Span & Partial<SpanShape>;
    if (adopted) adopted.setAttributes(attributes);
    try {
      // A no-op span (no SDK registered) has no attributes, and no run.
      if (!span.attributes) return undefined;
      const shaped = span as Span & SpanShape;
      const runKey = host.runKeyOf(shaped);
      const turn = readModelTurn(shaped.attributes);
      if (runKey === undefined || turn === undefined) return undefined;
      return { span: shaped, runKey, judgement: host.recordModelTurn(shaped, runKey, turn) };
    } finally {
      if (!adopted) span.end();
    }
  }

  private attributesOf(response: ModelResponse, extra: Attributes | undefined, own: boolean): Attributes {
    const attributes: Attributes = own ? { [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_CHAT } : {};
    const { outputTokens, inputTokens, finishReason, text } = response;
    if (typeof outputTokens === 'number' && Number.isFinite(outputTokens)) attributes[sc.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS] = outputTokens;
    if (typeof inputTokens === 'number' && Number.isFinite(inputTokens)) attributes[sc.ATTR_GEN_AI_USAGE_INPUT_TOKENS] = inputTokens;
    if (finishReason !== undefined) attributes[sc.ATTR_GEN_AI_RESPONSE_FINISH_REASONS] = [finishReason];
    if (text !== undefined && text !== '') {
      Object.assign(attributes, outputTextAttributes(text));
      // The text leaves the process only by the user's choice, redacted and cut like tool content.
      if (this.deps.capture && own) {
        attributes[sc.ATTR_GEN_AI_OUTPUT_MESSAGES] = JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: captureAttribute(text, this.deps.capture) }] }]);
      }
    }
    if (extra) Object.assign(attributes, extra);
    return attributes;
  }

  /** `onLoop` on a verdict, with the tool-call semantics: `continue` lifts a break, `break` stops the run; `block` has nothing to block and nudges. */
  private async act({ span, runKey, judgement }: { span: SpanShape; runKey: string; judgement: ModelJudgement }): Promise<LoopBreakError | undefined> {
    const { host } = this.deps;
    const { level, evidence, message } = judgement;
    if (level === undefined) return undefined;
    if (evidence === undefined) return this.stopped();
    const step = host.steps(runKey);
    const publicEvidence = modelEvidence(evidence, step);
    const event: LoopEvent = {
      level,
      action: defaultAction(true, level),
      detector: evidence.detector,
      nudge: message ?? '',
      evidence: publicEvidence,
      tool: MODEL_TOOL,
      args: undefined,
      step,
      runKey,
      traceId: span.spanContext().traceId,
    };
    const { act, byOnLoop } = decideAction(true, level, await this.deps.consult(event), undefined, false);
    if (act === 'resume') {
      host.resume(runKey);
      // The message said the run was stopped: it was not.
      host.takeNotice(runKey);
      span.setAttribute(sc.ATTR_LOOPGUARD_ACTION, 'continue');
      return undefined;
    }
    if (act !== 'break') return undefined;
    const reason = byOnLoop ? 'onLoop' : evidence.detector;
    host.stopRun(runKey, reason);
    const firstLine = (message ?? '').split('\n')[0] || `[loopguard break] The run was stopped (${reason}).`;
    return new LoopBreakError(firstLine, { reason, detector: evidence.detector, level: 'break', evidence: publicEvidence, traceId: span.spanContext().traceId, runKey, step, tool: MODEL_TOOL });
  }

  private activeRunKey(): string | undefined {
    const span = trace.getActiveSpan() as (Span & Partial<SpanShape>) | undefined;
    if (!span?.attributes) return undefined;
    return this.deps.host.runKeyOf(span as SpanShape) ?? span.spanContext().traceId;
  }
}

const noop = (): void => undefined;

/** A model verdict's evidence in the shape `onLoop` and LoopBreakError carry for tool verdicts. */
function modelEvidence(e: ModelEvidence, step: number): LoopEvidence {
  return { detector: e.detector, count: Math.floor(e.score), period: 1, since: step, fingerprint: `${MODEL_TOOL}:${e.detector}` };
}
