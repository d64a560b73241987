import { SpanStatusCode, type Span } from '@opentelemetry/api';
import { LoopBreakError, publicEvidence, ToolCallBlockedError, type LoopEvidence } from '../src/breaker.js';
import type { PreVerdict } from '../src/engine.js';
import type { GuardHost } from '../src/guard-host.js';
import { buildNudge } from '../src/nudge.js';
import type { Decision } from '../src/policy.js';
import * as sc from '../src/semconv.js';
import { ACTION_BLOCK, ACTION_BREAK } from '../src/span-annotations.js';
import type { SpanShape } from '../src/span-shape.js';
import type { Level } from '../src/types.js';
import { appendNudge } from './append-nudge.js';
import { exportableArgsPreview, type ResolvedCapture } from './capture.js';
import { REGISTER_DEFAULTS } from './defaults.js';
import { decideAction, defaultAction } from './loop-action.js';
import type { LoopEvents } from './loop-event.js';
import type { Call, ToolCalls } from './tool-call.js';

/** The synthetic result a blocked call returns by default. */
export interface NotExecutedResult {
  status: 'not_executed';
  reason: 'loop_detected';
  message: string;
}

/** True for the result of a call loopguard blocked instead of running it. */
export function isNotExecuted(value: unknown): value is NotExecutedResult {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return v.status === 'not_executed' && v.reason === 'loop_detected' && typeof v.message === 'string';
}

/** What acting before the call came to: run it, or hand back `value` instead. */
export type Refusal = { refused: false } | { refused: true; value: unknown };
export const NOT_REFUSED: Refusal = Object.freeze({ refused: false });

/** The step of the call whose span this is, as the processor annotated it. */
function stepOf(span: SpanShape, fallback: number): number {
  const step = span.attributes[sc.ATTR_LOOPGUARD_STEP];
  return typeof step === 'number' ? step : fallback;
}

/** What the guard lends its verdict actions. */
export interface VerdictActionDeps {
  host: GuardHost;
  calls: ToolCalls;
  loop: LoopEvents;
  capture: ResolvedCapture | undefined;
  /** The guard's options, read at each verdict. */
  options: { readonly appendNudge?: boolean; readonly onBlock?: 'result' | 'throw' };
}

/**
 * What the guard does with a verdict on a tool call, `onLoop` consulted:
 * before the call, refuse it (a stopped run, a pattern armed for blocking);
 * after it, nudge, block its result, or break the run. Only `LoopBreakError`
 * and `ToolCallBlockedError` leave here as the verdict's own errors.
 */
export class VerdictActions {
  constructor(private readonly deps: VerdictActionDeps) {}

  /** Handles a verdict reached before the call: refuse a stopped run, block or break an armed loop. */
  async refuseIfNeeded(call: Call, pre: PreVerdict): Promise<Refusal> {
    const { span, tool, args } = call;
    const runKey = call.runKey!;
    if (pre.stop) {
      // Already stopped: every later call is refused the same way, without asking again.
      span.setAttribute(sc.ATTR_LOOPGUARD_ACTION, ACTION_BREAK);
      span.setAttribute(sc.ATTR_LOOPGUARD_EXECUTED, false);
      const last = pre.stop.evidence;
      this.deps.calls.record(call, runKey, { kind: 'refused', as: last?.next });
      const error = this.breakError(span, tool, args, runKey, pre.stop.reason, last && publicEvidence(last, tool), stepOf(span, this.deps.host.steps(runKey)));
      markBroken(span, error);
      this.deps.calls.end(call);
      throw error;
    }
    const evidence = pre.evidence && publicEvidence(pre.evidence, tool);
    const step = this.deps.host.steps(runKey) + 1;
    const event = evidence && this.deps.loop.event(span, tool, args, runKey, pre.level, defaultAction(false, pre.level), evidence, step, false);
    const answer = event ? await this.deps.loop.consult(event) : undefined;
    const chosen = decideAction(false, pre.level, answer, undefined, false);
    if (chosen.act === 'run') return NOT_REFUSED;
    span.setAttribute(sc.ATTR_LOOPGUARD_ACTION, chosen.act === 'break' ? ACTION_BREAK : ACTION_BLOCK);
    span.setAttribute(sc.ATTR_LOOPGUARD_EXECUTED, false);
    const decision = this.deps.calls.record(call, runKey, { kind: 'refused', as: pre.armed?.next });
    const { act, byOnLoop } = decideAction(false, pre.level, answer, decision.level, false);
    if (act === 'break') {
      const reason = byOnLoop ? 'onLoop' : (decision.evidence[0]?.detector ?? evidence?.detector ?? 'loop');
      this.deps.host.stopRun(runKey, reason);
      span.setAttribute(sc.ATTR_LOOPGUARD_LEVEL, 'break');
      const error = this.breakError(span, tool, args, runKey, reason, evidence, stepOf(span, step));
      markBroken(span, error);
      this.deps.calls.end(call);
      throw error;
    }
    this.deps.calls.end(call);
    const nudge = event?.nudge ?? '';
    if ((this.deps.options.onBlock ?? REGISTER_DEFAULTS.onBlock) === 'throw') {
      const message = evidence ? this.errorLine(pre.level, evidence, tool, args, stepOf(span, step), true) : 'loopguard blocked this call';
      throw new ToolCallBlockedError(message, {
        reason: evidence?.detector ?? 'loop',
        detector: evidence?.detector ?? 'loop',
        level: 'critical',
        evidence,
        traceId: span.spanContext().traceId,
        runKey,
        step: stepOf(span, step),
        tool,
      });
    }
    const value: NotExecutedResult = { status: 'not_executed', reason: 'loop_detected', message: nudge };
    return { refused: true, value };
  }

  /** Acts on the decision reached once the call returned (or failed). Returns the value to hand back, or the break to throw. */
  async afterCall(call: Call, decision: Decision, result: unknown, succeeded: boolean): Promise<unknown> {
    const { span, tool, args } = call;
    const runKey = call.runKey ?? this.deps.host.runKeyOf(span) ?? span.spanContext().traceId;
    const level = decision.level!;
    const top = decision.evidence[0]!;
    const evidence = publicEvidence(top, tool);
    const event = this.deps.loop.event(span, tool, args, runKey, level, defaultAction(true, level), evidence, decision.step, true);
    const { act, byOnLoop } = decideAction(true, level, await this.deps.loop.consult(event), undefined, succeeded);
    if (act === 'resume') {
      this.deps.host.resume(runKey);
      span.setAttribute(sc.ATTR_LOOPGUARD_ACTION, 'continue');
      return result;
    }
    if (act === 'break') {
      const reason = byOnLoop ? 'onLoop' : top.detector;
      this.deps.host.stopRun(runKey, reason);
      span.setAttribute(sc.ATTR_LOOPGUARD_ACTION, ACTION_BREAK);
      return this.breakError(span, tool, args, runKey, reason, evidence, decision.step);
    }
    if (act === 'block') {
      span.setAttribute(sc.ATTR_LOOPGUARD_ACTION, ACTION_BLOCK);
      const value: NotExecutedResult = { status: 'not_executed', reason: 'loop_detected', message: event.nudge };
      return value;
    }
    return succeeded && (this.deps.options.appendNudge ?? REGISTER_DEFAULTS.appendNudge) ? appendNudge(result, event.nudge) : result;
  }

  private breakError(
    span: SpanShape,
    tool: string,
    args: unknown,
    runKey: string,
    reason: string,
    evidence: LoopEvidence | undefined,
    step: number,
  ): LoopBreakError {
    const message = evidence ? this.errorLine('break', evidence, tool, args, step, false) : `[loopguard break] The run was stopped (${reason}).`;
    return new LoopBreakError(message, {
      reason,
      detector: evidence?.detector ?? reason,
      level: 'break',
      evidence,
      traceId: span.spanContext().traceId,
      runKey,
      step,
      tool,
    });
  }

  /** The nudge's first line as an error message: errors end up on span statuses and in logs, so no content unless capture allows it. */
  private errorLine(level: Level, evidence: LoopEvidence, tool: string, args: unknown, step: number, blocked: boolean): string {
    return buildNudge({ level, evidence, tool, argsPreview: exportableArgsPreview(args, this.deps.capture), step, blocked }).split('\n')[0]!;
  }
}

/** A call that ends the run fails with the break, and its span says so. */
export function markBroken(span: Span, error: LoopBreakError): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
  span.setAttribute(sc.ATTR_ERROR_TYPE, error.name);
}
