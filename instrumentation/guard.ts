import {
  context,
  diag,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { isLoopGuardVerdictError, LoopBreakError, publicEvidence, ToolCallBlockedError, type LoopEvidence } from '../src/breaker.js';
import { COMPLETION_GATE, MODEL_TOOL, type PreVerdict, type RunVerdict } from '../src/engine.js';
import { verifyMessage } from '../src/completion-gate.js';
import { exitReason, isTurnLimitError, type ExitReason } from '../src/exit-reason.js';
import type { CallEnd, CallFacts, ResultClassifier } from '../src/call-entry.js';
import { fingerprintArgs } from '../src/fingerprint/index.js';
import type { Decision } from '../src/policy.js';
import type { GuardHost } from '../src/guard-host.js';
import { ACTION_BLOCK, ACTION_BREAK } from '../src/span-annotations.js';
import { inputSeen, NAME_ONLY_ARGS, unrecordedResult } from '../src/span-call.js';
import * as sc from '../src/semconv.js';
import type { SpanShape } from '../src/span-shape.js';
import { isOutcome, type Level, type Outcome } from '../src/types.js';
import { buildNudge } from '../src/nudge.js';
import { captureAttribute, exportableArgsPreview, modelArgsPreview, resolveCapture, type CaptureOptions, type ResolvedCapture } from './capture.js';
import { REGISTER_DEFAULTS } from './defaults.js';
import { decideAction, defaultAction, type LoopAction } from './loop-action.js';
import { ModelTurns, type ModelResponse, type ModelResponseInfo } from './model-turn.js';

export type { LoopAction } from './loop-action.js';
export type { ModelResponse, ModelResponseInfo } from './model-turn.js';

/** What `onLoop` receives. */
export interface LoopEvent {
  level: Level;
  /** What loopguard does unless `onLoop` overrides it. */
  action: 'nudge' | 'block' | 'break';
  detector: string;
  /** A ready-to-inject message for the model, with a state panel. */
  nudge: string;
  evidence: LoopEvidence;
  tool: string;
  /** The call's arguments (in-process only; never exported unless content capture is on). */
  args: unknown;
  step: number;
  runKey: string;
  traceId: string;
}

/** What `onComplete` receives when a run ends. */
export interface CompleteEvent {
  runKey: string;
  traceId: string;
  /** Why the run ended (`loopguard.run.exit_reason`). */
  exitReason: ExitReason;
  /** Subjects of failed checks no later success cleared (`service://…`, `test://…`, `file://…`); empty when none. */
  unresolved: string[];
  /** The run's final verdict; undefined when it made no tool call. */
  verdict: RunVerdict | undefined;
}

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

export interface ToolCallInfo {
  /** The framework's tool-call id (`gen_ai.tool.call.id`). */
  callId?: string;
  /** Extra attributes for the tool span. */
  attributes?: Attributes;
  /** Span name. default `execute_tool {tool}` (an MCP client uses `tools/call {tool}`) */
  spanName?: string;
  /** Span kind. default INTERNAL (an MCP client call is CLIENT) */
  kind?: SpanKind;
  /** When the call started and ended (epoch ms), for calls replayed from a record. default: the clock */
  startTime?: number;
  endTime?: number;
  /**
   * The caller was not shown the arguments (a framework hiding them from its telemetry; `args` is ignored): the call is
   * known by its tool name alone, as a tool span that records no arguments is.
   */
  argsUnseen?: boolean;
  /**
   * The caller is not shown the result (`execute` resolves to a stand-in): it counts as an answer of its own, never
   * empty and never a repeat, as on a tool span that records no result.
   */
  resultUnseen?: boolean;
}

export interface RunOptions {
  /** Sets `gen_ai.conversation.id`: calls of several traces with the same id are one run. */
  conversationId?: string;
  /** Sets `gen_ai.agent.name`, the name of the agent doing the run (the run's own name is `loopguard.run.name`). */
  agentName?: string;
  /** This run's output-token budget, instead of the `maxOutputTokens` option (sets `loopguard.run.max_output_tokens`). */
  maxOutputTokens?: number;
  attributes?: Attributes;
}

/** A run in progress or finished: what `guard.run()` hands its function. */
export interface RunHandle {
  /** The key the run's calls are compared under: its conversation id, else its trace id. */
  readonly runKey: string;
  /** The run's verdict so far; once the run is over, its final verdict. undefined before its first tool call. */
  verdict(): RunVerdict | undefined;
}

/** A run opened with `startRun`: code run inside `context` belongs to it, `end` closes it. */
export interface OpenRun extends RunHandle {
  readonly context: Context;
  end(error?: unknown): void;
}

/** What the guard may do to the tracer provider behind it. */
export interface ProviderLifecycle {
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** The synthetic result a blocked call returns by default. */
export interface NotExecutedResult {
  status: 'not_executed';
  reason: 'loop_detected';
  message: string;
}

type AnyFunction = (...args: never[]) => unknown;

/** A tool as `wrapTool` returns it: its own result, or the "not executed" result of a blocked call. */
export type GuardedTool<F extends AnyFunction> = (...args: Parameters<F>) => Promise<Awaited<ReturnType<F>> | NotExecutedResult>;

/** True for the result of a call loopguard blocked instead of running it. */
export function isNotExecuted(value: unknown): value is NotExecutedResult {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return v.status === 'not_executed' && v.reason === 'loop_detected' && typeof v.message === 'string';
}

/** One guarded call in progress: what the history entry is built from, and the span. */
interface Call extends CallFacts {
  span: Span & SpanShape;
  /** undefined when the call is outside any run (it is then only annotated when its span ends). */
  runKey: string | undefined;
  /** The guard made the span (it was not adopted from another instrumentation's): the guard ends it. */
  own: boolean;
  /** The processor recorded the call on the guard's own span: it ends the span too (see `endCall`). */
  recorded: boolean;
  /** The caller is not shown the result (`ToolCallInfo.resultUnseen`). */
  resultUnseen: boolean;
}

const AFTER_CALL_FAILED = 'acting on a verdict failed; the result is returned as it is';

type Refusal = { refused: false } | { refused: true; value: unknown };
const NOT_REFUSED: Refusal = Object.freeze({ refused: false });

/** Break decisions always notify, so a quiet decision never needs acting on. */
function needsAction(decision: Decision): boolean {
  return decision.level !== undefined && decision.notify;
}
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The step of the call whose span this is, as the processor annotated it. */
function stepOf(span: SpanShape, fallback: number): number {
  const step = span.attributes[sc.ATTR_LOOPGUARD_STEP];
  return typeof step === 'number' ? step : fallback;
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
  private readonly tracer: Tracer;
  private readonly options: GuardOptions;
  private readonly capture: ResolvedCapture | undefined;
  private readonly lifecycle: ProviderLifecycle;
  private readonly modelTurns: ModelTurns;

  constructor(tracer: Tracer, processor: GuardHost, options: GuardOptions, lifecycle: ProviderLifecycle) {
    this.tracer = tracer;
    this.processor = processor;
    this.options = options;
    this.capture = resolveCapture(options.captureContent ?? REGISTER_DEFAULTS.captureContent);
    this.lifecycle = lifecycle;
    this.modelTurns = new ModelTurns({
      tracer,
      host: processor,
      capture: this.capture,
      consult: (event) => this.consult(event),
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
    // A run id is not an agent name: the name given here goes to loopguard.run.name.
    const attributes: Attributes = {
      [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_INVOKE_AGENT,
      [sc.ATTR_LOOPGUARD_RUN_NAME]: name,
      ...options.attributes,
    };
    if (options.agentName !== undefined) attributes[sc.ATTR_GEN_AI_AGENT_NAME] = options.agentName;
    if (options.conversationId !== undefined) attributes[sc.ATTR_GEN_AI_CONVERSATION_ID] = options.conversationId;
    if (options.maxOutputTokens !== undefined) attributes[sc.ATTR_LOOPGUARD_RUN_MAX_OUTPUT_TOKENS] = options.maxOutputTokens;
    const span = this.tracer.startSpan(`${sc.GEN_AI_OPERATION_INVOKE_AGENT} ${name}`, { root: true, kind: SpanKind.INTERNAL, attributes });
    const shaped = span as Span & Partial<SpanShape>;
    const runKey = (shaped.attributes ? this.processor.runKeyOf(shaped as SpanShape) : undefined) ?? span.spanContext().traceId;
    const processor = this.processor;
    const complete = (error: unknown) => this.complete(span as Span & Partial<SpanShape>, runKey, error);
    let ended = false;
    return {
      runKey,
      context: trace.setSpan(context.active(), span),
      verdict: () => processor.verdict(runKey),
      end(error?: unknown) {
        if (ended) return;
        ended = true;
        if (error !== undefined) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
          span.setAttribute(sc.ATTR_ERROR_TYPE, error instanceof Error ? error.name : typeof error);
        }
        span.end();
        complete(error);
      },
    };
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
    return (await this.consult(event)) === 'continue' ? undefined : message;
  }

  /** The framework's own turn limit ended the active run (exit reason `max_turns`): for adapters that see it without an error. */
  reachTurnLimit(): void {
    const runKey = this.activeRunKey();
    if (runKey !== undefined) this.processor.errors.run('recording the turn limit failed', () => this.processor.reachTurnLimit(runKey), undefined);
  }

  /** Tells `onComplete` why the run whose root span just ended ended. */
  private complete(span: Span & Partial<SpanShape>, runKey: string, error: unknown): void {
    const onComplete = this.options.onComplete;
    if (!onComplete) return;
    const errors = this.processor.errors;
    const event = errors.run(
      'building the onComplete event failed',
      (): CompleteEvent => {
        const verdict = this.processor.verdict(runKey);
        const stamped = span.attributes?.[sc.ATTR_LOOPGUARD_RUN_EXIT_REASON];
        const name = error instanceof Error ? error.name : undefined;
        // A run without tool calls is not summarised on its span: its reason follows from how it ended.
        const reason = typeof stamped === 'string' ? (stamped as ExitReason) : exitReason(null, { failed: error !== undefined, aborted: name === 'AbortError', turnLimit: isTurnLimitError(name) });
        return { runKey, traceId: span.spanContext().traceId, exitReason: reason, unresolved: verdict?.unresolved ?? [], verdict };
      },
      undefined,
    );
    if (event) void errors.runAsync('onComplete threw', async () => onComplete(event), undefined);
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
    const call = errors.run('starting the tool span failed; the call runs unguarded', () => this.begin(tool, args, info, reused), undefined);
    if (!call) return execute();
    if (call.runKey !== undefined) {
      const pre = this.processor.precheck(call.runKey, tool, call.argsHash, call.normArgsHash);
      if (pre) {
        // Only the documented verdict errors leave; a failure of loopguard's own lets the call run.
        const refused = await errors.runAsync(
          'acting on a verdict before the call failed; the call runs unguarded',
          () => this.refuseIfNeeded(call, pre),
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
      const decision = errors.run('recording the tool error failed', () => this.recordError(call, err), undefined);
      const breakError = decision && needsAction(decision) ? await errors.runAsync(AFTER_CALL_FAILED, () => this.afterCall(call, decision, undefined, false), undefined) : undefined;
      this.endCall(call);
      if (breakError instanceof LoopBreakError) throw breakError;
      throw err;
    }
    const decision = errors.run('recording the tool result failed', () => this.recordResult(call, result), undefined);
    // No verdict to act on (the common case): no extra promise on the hot path.
    const after = decision && needsAction(decision) ? await errors.runAsync(AFTER_CALL_FAILED, () => this.afterCall(call, decision, result, true), result) : result;
    if (after instanceof LoopBreakError) markBroken(call.span, after);
    this.endCall(call);
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

  /** Starts (or adopts) the call's span and resolves its run. */
  private begin(tool: string, args: unknown, info: ToolCallInfo, reused: (Span & SpanShape) | undefined): Call {
    const fingerprint = this.processor.fingerprintOptions(tool);
    const argsSeen = info.argsUnseen !== true;
    const resultUnseen = info.resultUnseen === true;
    const fp = argsSeen ? fingerprintArgs(args, fingerprint) : { argsHash: NAME_ONLY_ARGS, normArgsHash: NAME_ONLY_ARGS, argsSketch: undefined, argsText: undefined };
    const attributes: Attributes = reused
      ? {}
      : { [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_EXECUTE_TOOL, [sc.ATTR_GEN_AI_TOOL_NAME]: tool, [sc.ATTR_GEN_AI_TOOL_TYPE]: 'function' };
    attributes[sc.ATTR_LOOPGUARD_ARGS_HASH] = fp.argsHash;
    if (fp.normArgsHash !== fp.argsHash) attributes[sc.ATTR_LOOPGUARD_NORM_ARGS_HASH] = fp.normArgsHash;
    if (fp.argsSketch !== undefined) attributes[sc.ATTR_LOOPGUARD_ARGS_SKETCH] = fp.argsSketch;
    if (info.callId !== undefined) attributes[sc.ATTR_GEN_AI_TOOL_CALL_ID] = info.callId;
    if (this.capture && argsSeen) attributes[sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = captureAttribute(args, this.capture);
    if (!argsSeen || resultUnseen) attributes[sc.ATTR_LOOPGUARD_INPUT] = inputSeen(argsSeen, !resultUnseen);
    if (info.attributes) Object.assign(attributes, info.attributes);
    let span: Span & SpanShape;
    if (reused) {
      span = reused;
      span.setAttributes(attributes);
    } else {
      const name = info.spanName ?? `${sc.GEN_AI_OPERATION_EXECUTE_TOOL} ${tool}`;
      // The SDK's Span satisfies SpanShape; a no-op span (no SDK registered) has no attributes and no run.
      span = this.tracer.startSpan(name, { kind: info.kind ?? SpanKind.INTERNAL, attributes, startTime: info.startTime }) as Span & SpanShape;
    }
    return {
      span,
      tool,
      hasArgs: argsSeen,
      args: argsSeen ? args : undefined,
      argsHash: fp.argsHash,
      normArgsHash: fp.normArgsHash,
      argsSketch: fp.argsSketch,
      argsText: fp.argsText,
      // Signed when the call ends, if it or one in the window found nothing.
      argsWords: undefined,
      fingerprint,
      shapeHash: undefined,
      blocked: false,
      runKey: span.attributes ? this.processor.ownRunKey(span, info.attributes) : undefined,
      startMs: info.startTime ?? this.processor.now(),
      endMs: info.endTime,
      own: reused === undefined,
      recorded: false,
      resultUnseen,
    };
  }

  private recordResult(call: Call, result: unknown): Decision {
    if (this.capture && !call.resultUnseen) call.span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, captureAttribute(result, this.capture));
    if (call.runKey === undefined) return this.processor.evaluate(call.span);
    const declared = call.span.attributes?.[sc.ATTR_LOOPGUARD_OUTCOME];
    const outcome = isOutcome(declared) ? declared : undefined;
    const end: CallEnd = call.resultUnseen
      ? { kind: 'hashed', resultHash: unrecordedResult(call.span.spanContext().spanId), outcome: outcome ?? 'ok' }
      : { kind: 'returned', result, outcome };
    return this.record(call, call.runKey, end, this.options.classifyResult);
  }

  /** Records the call in its run (the processor's fast path). */
  private record(call: Call, runKey: string, end: CallEnd, classify?: ResultClassifier): Decision {
    const decision = this.processor.recordCall(call.span, runKey, call, end, classify, call.own);
    call.recorded = call.own;
    return decision;
  }

  /** Ends the call's span, unless it belongs to another instrumentation; one the processor recorded, through it. */
  private endCall(call: Call): void {
    if (!call.own) return;
    if (call.recorded) this.processor.endRecorded(call.span, call.endMs);
    else call.span.end(call.endMs);
  }

  private recordError(call: Call, err: unknown): Decision {
    const type = err instanceof Error ? err.name || err.constructor.name : typeof err;
    const message = err instanceof Error ? err.message : String(err);
    const span = call.span;
    span.setStatus({ code: SpanStatusCode.ERROR, message });
    span.setAttribute(sc.ATTR_ERROR_TYPE, type);
    if (err instanceof Error) span.recordException(err);
    if (call.runKey === undefined) return this.processor.evaluate(span);
    const retryable = span.attributes?.[sc.ATTR_LOOPGUARD_ERROR_RETRYABLE];
    return this.record(call, call.runKey, {
      kind: 'failed',
      errorType: type,
      message,
      retryable: typeof retryable === 'boolean' ? retryable : undefined,
    });
  }

  /** Handles a verdict reached before the call: refuse a stopped run, block or break an armed loop. */
  private async refuseIfNeeded(call: Call, pre: PreVerdict): Promise<Refusal> {
    const { span, tool, args } = call;
    const runKey = call.runKey!;
    if (pre.stop) {
      // Already stopped: every later call is refused the same way, without asking again.
      span.setAttribute(sc.ATTR_LOOPGUARD_ACTION, ACTION_BREAK);
      span.setAttribute(sc.ATTR_LOOPGUARD_EXECUTED, false);
      const last = pre.stop.evidence;
      this.record(call, runKey, { kind: 'refused', as: last?.next });
      const error = this.breakError(span, tool, args, runKey, pre.stop.reason, last && publicEvidence(last, tool), stepOf(span, this.processor.steps(runKey)));
      markBroken(span, error);
      this.endCall(call);
      throw error;
    }
    const evidence = pre.evidence && publicEvidence(pre.evidence, tool);
    const step = this.processor.steps(runKey) + 1;
    const event = evidence && this.event(span, tool, args, runKey, pre.level, defaultAction(false, pre.level), evidence, step, false);
    const answer = event ? await this.consult(event) : undefined;
    const chosen = decideAction(false, pre.level, answer, undefined, false);
    if (chosen.act === 'run') return NOT_REFUSED;
    span.setAttribute(sc.ATTR_LOOPGUARD_ACTION, chosen.act === 'break' ? ACTION_BREAK : ACTION_BLOCK);
    span.setAttribute(sc.ATTR_LOOPGUARD_EXECUTED, false);
    const decision = this.record(call, runKey, { kind: 'refused', as: pre.armed?.next });
    const { act, byOnLoop } = decideAction(false, pre.level, answer, decision.level, false);
    if (act === 'break') {
      const reason = byOnLoop ? 'onLoop' : (decision.evidence[0]?.detector ?? evidence?.detector ?? 'loop');
      this.processor.stopRun(runKey, reason);
      span.setAttribute(sc.ATTR_LOOPGUARD_LEVEL, 'break');
      const error = this.breakError(span, tool, args, runKey, reason, evidence, stepOf(span, step));
      markBroken(span, error);
      this.endCall(call);
      throw error;
    }
    this.endCall(call);
    const nudge = event?.nudge ?? '';
    if ((this.options.onBlock ?? REGISTER_DEFAULTS.onBlock) === 'throw') {
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
  private async afterCall(call: Call, decision: Decision, result: unknown, succeeded: boolean): Promise<unknown> {
    const { span, tool, args } = call;
    const runKey = call.runKey ?? this.processor.runKeyOf(span) ?? span.spanContext().traceId;
    const level = decision.level!;
    const top = decision.evidence[0]!;
    const evidence = publicEvidence(top, tool);
    const event = this.event(span, tool, args, runKey, level, defaultAction(true, level), evidence, decision.step, true);
    const { act, byOnLoop } = decideAction(true, level, await this.consult(event), undefined, succeeded);
    if (act === 'resume') {
      this.processor.resume(runKey);
      span.setAttribute(sc.ATTR_LOOPGUARD_ACTION, 'continue');
      return result;
    }
    if (act === 'break') {
      const reason = byOnLoop ? 'onLoop' : top.detector;
      this.processor.stopRun(runKey, reason);
      span.setAttribute(sc.ATTR_LOOPGUARD_ACTION, ACTION_BREAK);
      return this.breakError(span, tool, args, runKey, reason, evidence, decision.step);
    }
    if (act === 'block') {
      span.setAttribute(sc.ATTR_LOOPGUARD_ACTION, ACTION_BLOCK);
      const value: NotExecutedResult = { status: 'not_executed', reason: 'loop_detected', message: event.nudge };
      return value;
    }
    return succeeded && (this.options.appendNudge ?? REGISTER_DEFAULTS.appendNudge) ? appendNudge(result, event.nudge) : result;
  }

  private event(
    span: SpanShape,
    tool: string,
    args: unknown,
    runKey: string,
    level: Level,
    action: LoopEvent['action'],
    evidence: LoopEvidence,
    step: number,
    executed: boolean,
  ): LoopEvent {
    const nudge = buildNudge({ level, evidence, tool, argsPreview: modelArgsPreview(args, this.capture), step, blocked: !executed && level !== 'break' });
    return { level, action, detector: evidence.detector, nudge, evidence, tool, args, step, runKey, traceId: span.spanContext().traceId };
  }

  /** Asks `onLoop` what to do (a throwing or async hook included); undefined: the default action applies. */
  private async consult(event: LoopEvent): Promise<LoopAction | undefined> {
    const onLoop = this.options.onLoop;
    if (!onLoop) return undefined;
    const answer: unknown = await this.processor.errors.runAsync('onLoop threw; the default action applies', () => onLoop(event), undefined);
    if (answer === undefined) return undefined;
    if (answer === 'continue' || answer === 'block' || answer === 'break') return answer;
    diag.warn(`loopguard: onLoop returned ${String(answer)}; expected 'continue', 'block', 'break' or nothing`);
    return undefined;
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
    return buildNudge({ level, evidence, tool, argsPreview: exportableArgsPreview(args, this.capture), step, blocked }).split('\n')[0]!;
  }

  private activeRunKey(): string | undefined {
    const span = trace.getActiveSpan() as (Span & Partial<SpanShape>) | undefined;
    if (!span || !span.attributes) return undefined;
    return this.processor.runKeyOf(span as SpanShape) ?? span.spanContext().traceId;
  }
}

/** A call that ends the run fails with the break, and its span says so. */
function markBroken(span: Span, error: LoopBreakError): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
  span.setAttribute(sc.ATTR_ERROR_TYPE, error.name);
}

/** Appends the nudge where the model will read it; other result types are left as they are. */
export function appendNudge(result: unknown, nudge: string): unknown {
  if (typeof result === 'string') return `${result}\n\n${nudge}`;
  if (isPlainObject(result)) return { ...result, loopguard_notice: nudge };
  return result;
}
