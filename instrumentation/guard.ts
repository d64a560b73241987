import { context, trace, type Span, type Tracer } from '@opentelemetry/api';
import { isLoopGuardVerdictError, LoopBreakError, type LoopEvidence } from '../src/breaker.js';
import { COMPLETION_GATE, MODEL_TOOL, type RunVerdict } from '../src/engine.js';
import { verifyMessage } from '../src/completion-gate.js';
import type { Decision } from '../src/policy.js';
import type { GuardHost } from '../src/guard-host.js';
import * as sc from '../src/semconv.js';
import type { SpanShape } from '../src/span-shape.js';
import type { Outcome } from '../src/types.js';
import { AgentRuns, type CompleteEvent, type OpenRun, type RunHandle, type RunOptions } from './agent-run.js';
import { appendNudge } from './append-nudge.js';
import { resolveCapture, type CaptureOptions } from './capture.js';
import { REGISTER_DEFAULTS } from './defaults.js';
import type { LoopAction } from './loop-action.js';
import { LoopEvents, type LoopEvent } from './loop-event.js';
import { ModelTurns, type ModelResponse, type ModelResponseInfo } from './model-turn.js';
import { ToolCalls, type ToolCallInfo } from './tool-call.js';
import { markBroken, NOT_REFUSED, VerdictActions, type NotExecutedResult } from './verdict-actions.js';

export type { LoopAction } from './loop-action.js';
export type { ModelResponse, ModelResponseInfo } from './model-turn.js';

export interface GuardOptions {
  /**
   * Called for every verdict that should reach the agent (warnings are throttled), and when the completion gate asks
   * the model to verify before finishing (detector `completion-gate`, tool `(model)`; answering 'continue' lets the run
   * finish without asking). May be async; errors are logged, never thrown.
   */
  onLoop?: (event: LoopEvent) => LoopAction | void | Promise<LoopAction | void>;
  /** Called once when a run opened by the guard (`guard.run`, a framework invocation) ends, with why it ended. May be async; errors are logged, never thrown. */
  onComplete?: (event: CompleteEvent) => void | Promise<void>;
  /** Append the nudge to the tool result so the model sees it (strings get a paragraph, plain objects a `loopguard_notice` field). default true */
  appendNudge?: boolean;
  /** A blocked call returns a synthetic "not executed" result (`'result'`) or throws `ToolCallBlockedError` (`'throw'`). default 'result' */
  onBlock?: 'result' | 'throw';
  /** Record redacted, size-limited copies of arguments and results on tool spans. default false */
  captureContent?: boolean | CaptureOptions;
  /** Decides a result's outcome class before the built-in rules (return undefined to fall through). */
  classifyResult?: (tool: string, result: unknown) => Outcome | undefined;
}

/** What the guard may do to the tracer provider behind it. */
export interface ProviderLifecycle {
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

type AnyFunction = (...args: never[]) => unknown;

/** A tool as `wrapTool` returns it: its own result, or the "not executed" result of a blocked call. */
export type GuardedTool<F extends AnyFunction> = (...args: Parameters<F>) => Promise<Awaited<ReturnType<F>> | NotExecutedResult>;

const AFTER_CALL_FAILED = 'acting on a verdict failed; the result is returned as it is';

/** Break decisions always notify, so a quiet decision never needs acting on. */
function needsAction(decision: Decision): boolean {
  return decision.level !== undefined && decision.notify;
}

/**
 * Runs an agent's tool calls through loopguard: one `execute_tool` span per
 * call, a verdict before the call (blocked or refused calls never execute)
 * and after it (nudges, breaks). Only `LoopBreakError` and
 * `ToolCallBlockedError` ever come from loopguard itself; anything else that
 * fails inside it is logged and the call proceeds as if unguarded.
 */
export class Guard {
  /** The span processor, through the narrow interface the guard needs of it. */
  readonly processor: GuardHost;
  /**
   * Settles when the framework adapters `register()` enabled have patched what they could load. Importing loopguard
   * preloads the installed frameworks, so they are patched before `register()` returns and nothing needs to wait for this.
   */
  ready: Promise<void> = Promise.resolve();
  private readonly options: GuardOptions;
  private readonly lifecycle: ProviderLifecycle;
  private readonly modelTurns: ModelTurns;
  private readonly calls: ToolCalls;
  private readonly loop: LoopEvents;
  private readonly actions: VerdictActions;
  private readonly runs: AgentRuns;

  constructor(tracer: Tracer, processor: GuardHost, options: GuardOptions, lifecycle: ProviderLifecycle) {
    this.processor = processor;
    this.options = options;
    const capture = resolveCapture(options.captureContent ?? REGISTER_DEFAULTS.captureContent);
    this.lifecycle = lifecycle;
    this.runs = new AgentRuns({ tracer, host: processor, options });
    this.calls = new ToolCalls({ tracer, host: processor, capture, options });
    this.loop = new LoopEvents(options, processor.errors, capture);
    this.actions = new VerdictActions({ host: processor, calls: this.calls, loop: this.loop, capture, options });
    this.modelTurns = new ModelTurns({
      tracer,
      host: processor,
      capture,
      consult: (event) => this.loop.consult(event),
      deliver: options.appendNudge ?? REGISTER_DEFAULTS.appendNudge,
    });
  }

  /**
   * Runs `fn` as one agent run: an `invoke_agent {name}` root span whose
   * tool calls are compared with each other. `fn` gets the run's handle
   * (its key, and its verdict, which stays readable after the run). A
   * `LoopBreakError` from a tool propagates out of it unchanged, for the
   * caller to handle.
   */
  run<T>(name: string, fn: (run: RunHandle) => T | Promise<T>, options: RunOptions = {}): Promise<T> {
    const open = this.startRun(name, options);
    return context.with(open.context, async () => {
      try {
        const value = await fn(open);
        open.end();
        return value;
      } catch (err) {
        open.end(err);
        throw err;
      }
    });
  }

  /**
   * Opens a run whose start and end are signalled separately (what the
   * framework adapters use for invocations they see begin and finish):
   * run code inside `context` to make it part of the run, and call `end`
   * once, with the error if it failed.
   */
  startRun(name: string, options: RunOptions = {}): OpenRun {
    return this.runs.start(name, options);
  }

  /**
   * The completion gate, for code that sees a run about to finish (the
   * framework adapters; your own agent loop before it accepts a final
   * answer): with failed checks still open, the first call returns the
   * message asking the model to verify (add it as a turn), and `onLoop` is
   * told; later calls return undefined and the finish is recorded
   * (`completed_unverified` when the run ends). Never throws.
   */
  async finishGate(): Promise<string | undefined> {
    const errors = this.processor.errors;
    const active = trace.getActiveSpan() as (Span & Partial<SpanShape>) | undefined;
    const runKey = this.activeRunKey();
    if (runKey === undefined || !active?.attributes) return undefined;
    const attempt = errors.run('the completion gate failed; the run finishes unasked', () => this.processor.finishAttempt(runKey, active as Span & SpanShape), undefined);
    if (!attempt?.ask) return undefined;
    const message = verifyMessage(attempt.subjects);
    const step = this.processor.steps(runKey);
    const evidence: LoopEvidence = { detector: COMPLETION_GATE, count: attempt.subjects.length, period: 1, since: step, fingerprint: `${MODEL_TOOL}:` };
    const event: LoopEvent = {
      level: 'warning',
      action: 'nudge',
      detector: COMPLETION_GATE,
      nudge: message,
      evidence,
      tool: MODEL_TOOL,
      args: undefined,
      step,
      runKey,
      traceId: active.spanContext().traceId,
    };
    return (await this.loop.consult(event)) === 'continue' ? undefined : message;
  }

  /** The framework's own turn limit ended the active run (exit reason `max_turns`): for adapters that see it without an error. */
  reachTurnLimit(): void {
    const runKey = this.activeRunKey();
    if (runKey !== undefined) this.processor.errors.run('recording the turn limit failed', () => this.processor.reachTurnLimit(runKey), undefined);
  }

  /**
   * Wraps one tool function. Single-argument tools are fingerprinted on that argument, others on the argument list.
   * A blocked call does not run and resolves to a `NotExecutedResult` instead (check with `isNotExecuted`), unless the
   * guard was created with `onBlock: 'throw'`.
   */
  wrapTool<F extends AnyFunction>(name: string, fn: F, info?: Omit<ToolCallInfo, 'callId'>): GuardedTool<F> {
    const guard = this;
    const wrapped = function (this: unknown, ...args: Parameters<F>) {
      const fingerprinted = args.length === 1 ? args[0] : args;
      return guard.callTool(name, fingerprinted, () => fn.apply(this, args), info) as Promise<Awaited<ReturnType<F>> | NotExecutedResult>;
    };
    Object.defineProperty(wrapped, 'name', { value: fn.name || name });
    return wrapped;
  }

  /** Wraps every function of an object of tools, keyed by tool name. */
  wrapTools<T extends Record<string, AnyFunction>>(tools: T): { [K in keyof T]: GuardedTool<T[K]> } {
    const out: Record<string, unknown> = {};
    for (const [name, fn] of Object.entries(tools)) out[name] = this.wrapTool(name, fn);
    return out as { [K in keyof T]: GuardedTool<T[K]> };
  }

  /**
   * Records a model response of the run the caller is in, as a framework
   * adapter sees it: one LLM span judged by the model detectors, `onLoop`
   * consulted on a verdict. Resolves to the LoopBreakError to fail the model
   * call with when the response stopped the run.
   */
  recordModelResponse(response: ModelResponse, info?: ModelResponseInfo): Promise<LoopBreakError | undefined> {
    return this.modelTurns.record(response, info);
  }

  /** The model-side message (budget notice, truncation recovery, nudge) waiting for the caller's run, handed out once; none with `appendNudge: false`. */
  takeModelMessage(): string | undefined {
    return this.modelTurns.takeMessage();
  }

  /**
   * Marks a model call of the caller's run as one whose response will be
   * recorded with `recordModelResponse`: LLM spans of the run that end before
   * the returned function is called are not counted again.
   */
  beginModelCall(): () => void {
    return this.modelTurns.beginCall();
  }

  /**
   * Ends a `beginModelCall` mark of the caller's run where the framework
   * reports the call's end in another callback than its start (the
   * returned function of `beginModelCall` is then not called).
   */
  endModelCall(): void {
    this.modelTurns.endCall();
  }

  /** The LoopBreakError a model call must fail with when loopguard has stopped the caller's run; undefined otherwise. */
  stoppedRunError(): LoopBreakError | undefined {
    return this.processor.errors.run('reading the run state failed', () => this.modelTurns.stopped(), undefined);
  }

  /** The verdict of the run the caller is in (or of `runKey`): what an agent checks to decide whether to go on. */
  verdict(runKey?: string): RunVerdict | undefined {
    const key = runKey ?? this.activeRunKey();
    return key === undefined ? undefined : this.processor.verdict(key);
  }

  /** Exports every finished span now (before a serverless function freezes, say). */
  flush(): Promise<void> {
    return this.lifecycle.flush();
  }

  /** Flushes and shuts down what `register()` set up. */
  shutdown(): Promise<void> {
    return this.lifecycle.shutdown();
  }

  /**
   * The primitive every wrapper and framework adapter uses: runs `execute`
   * as the tool call `tool(args)` under the breaker.
   */
  async callTool(tool: string, args: unknown, execute: () => unknown, info: ToolCallInfo = {}): Promise<unknown> {
    const active = trace.getActiveSpan() as (Span & Partial<SpanShape>) | undefined;
    const activeTool = active?.attributes?.[sc.ATTR_GEN_AI_OPERATION_NAME] === sc.GEN_AI_OPERATION_EXECUTE_TOOL && active.attributes[sc.ATTR_GEN_AI_TOOL_NAME] === tool;
    // Already inside loopguard's span for this very call (a wrapped tool inside an adapted framework tool): count it once.
    if (activeTool && active.attributes![sc.ATTR_LOOPGUARD_ARGS_HASH] !== undefined) return execute();
    // Inside another instrumentation's span for this call (the AI SDK's execute_tool): judge that span instead of adding a second one.
    const reused = activeTool && active.isRecording() ? (active as Span & SpanShape) : undefined;
    const errors = this.processor.errors;
    const call = errors.run('starting the tool span failed; the call runs unguarded', () => this.calls.begin(tool, args, info, reused), undefined);
    if (!call) return execute();
    if (call.runKey !== undefined) {
      const pre = this.processor.precheck(call.runKey, tool, call.argsHash, call.normArgsHash);
      if (pre) {
        // Only the documented verdict errors leave; a failure of loopguard's own lets the call run.
        const refused = await errors.runAsync(
          'acting on a verdict before the call failed; the call runs unguarded',
          () => this.actions.refuseIfNeeded(call, pre),
          NOT_REFUSED,
          isLoopGuardVerdictError,
        );
        if (refused.refused) return refused.value;
      }
    }
    let result: unknown;
    try {
      result = await context.with(trace.setSpan(context.active(), call.span), execute);
    } catch (err) {
      const decision = errors.run('recording the tool error failed', () => this.calls.recordError(call, err), undefined);
      const breakError = decision && needsAction(decision) ? await errors.runAsync(AFTER_CALL_FAILED, () => this.actions.afterCall(call, decision, undefined, false), undefined) : undefined;
      this.calls.end(call);
      if (breakError instanceof LoopBreakError) throw breakError;
      throw err;
    }
    const decision = errors.run('recording the tool result failed', () => this.calls.recordResult(call, result), undefined);
    // No verdict to act on (the common case): no extra promise on the hot path.
    const after = decision && needsAction(decision) ? await errors.runAsync(AFTER_CALL_FAILED, () => this.actions.afterCall(call, decision, result, true), result) : result;
    if (after instanceof LoopBreakError) markBroken(call.span, after);
    this.calls.end(call);
    if (after instanceof LoopBreakError) throw after;
    // A result already carrying a loop nudge keeps it; the model notice waits for the next one.
    return after === result ? this.withModelNotice(call.runKey, after) : after;
  }

  /** A message about the model's own output (budget, truncation) rides on the next tool result, where nudges go. */
  private withModelNotice(runKey: string | undefined, result: unknown): unknown {
    if (runKey === undefined || !(this.options.appendNudge ?? REGISTER_DEFAULTS.appendNudge)) return result;
    const notice = this.processor.errors.run('reading the model notice failed', () => this.processor.takeNotice(runKey), undefined);
    return notice === undefined ? result : appendNudge(result, notice);
  }

  private activeRunKey(): string | undefined {
    const span = trace.getActiveSpan() as (Span & Partial<SpanShape>) | undefined;
    if (!span || !span.attributes) return undefined;
    return this.processor.runKeyOf(span as SpanShape) ?? span.spanContext().traceId;
  }
}
