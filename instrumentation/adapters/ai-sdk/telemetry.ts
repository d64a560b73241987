import { LoopBreakError } from '../../../src/breaker.js';
import { ATTR_LOOPGUARD_FRAMEWORK, insideGuardedToolCall, isNotExecuted } from '../shared/guard-like.js';
import type { ToolCallGuard } from '../shared/guard-like.js';
import { guardToolSet } from './v6-tools.js';
import { context } from '@opentelemetry/api';
import type { OpenRun } from '../../agent-run.js';
import { openAutoRun } from '../shared/auto-run.js';
import { activeModelSpan, deliverToPrompt, recordModelCall } from './model-turns.js';
import type { Span } from '@opentelemetry/api';

interface ToolCallEvent {
  callId?: string;
  toolCallId?: string;
  toolCall?: { toolName?: string; toolCallId?: string; input?: unknown };
  execute: () => Promise<unknown>;
  /** ai@7: false when the call hides its inputs (or outputs) from telemetry; integrations then get neither. */
  recordInputs?: unknown;
  recordOutputs?: unknown;
}
interface ToolEndEvent {
  callId?: string;
  toolCall?: { toolCallId?: string };
  toolOutput?: { type?: string; output?: unknown };
}


/**
 * loopguard as an AI SDK telemetry integration (the object ai@6's
 * `registerTelemetryIntegration` and ai@7's `registerTelemetry` put on
 * `globalThis.AI_SDK_TELEMETRY_INTEGRATIONS`). Needs no module patching, so
 * it works the same under ESM and CJS.
 *
 * - ai@6: `onStart` receives the tool objects that will run; their `execute`
 *   is routed through the guard (see v6-tools.ts).
 * - ai@7: `onStart` gets copies, so tool calls are guarded from
 *   `executeTool`, which wraps the execution but cannot change its output.
 *   The output is taken from `onToolExecutionEnd`, which ai@7 calls after
 *   the wrapper returned; the guard finishes the call then. A blocked call
 *   fails with the "not executed" text (the model gets it as a tool error);
 *   a nudge is written into the output object ai@7 passes that hook, which
 *   is the result the model reads next. A break fails the
 *   tool call, then the run: the next model call of the same generation
 *   (`executeLanguageModelCall`) throws the LoopBreakError, so
 *   `generateText` rejects with it.
 */
export class LoopguardAiSdkTelemetry {
  private readonly breaks = new Map<string, LoopBreakError>();
  /** Per tool call that ran: hands the guard the output ai@7 reports afterwards, and the guard's answer. */
  private readonly outputs = new Map<string, { deliver: (output: unknown) => void; answer: Promise<unknown> }>();
  /** Per generation: guard decisions still in progress (they may break the run). */
  private readonly deciding = new Map<string, Set<Promise<void>>>();
  /** Per generation called outside any run: the run it opened by itself, ended with the generation. */
  private readonly runs = new Map<string, OpenRun>();
  /** Per generation (ai@7): the framework's LLM span open around its latest model call, if a tracing integration made one. */
  private readonly modelSpans = new Map<string, Span>();
  /** Per generation (ai@7): ends the mark of its current step's model call (see executeLanguageModelCall). */
  private readonly modelCallMarks = new Map<string, () => void>();

  constructor(private readonly guard: () => ToolCallGuard | undefined) {
    // ai@6 calls integration hooks unbound.
    this.onStart = this.onStart.bind(this);
    this.executeTool = this.executeTool.bind(this);
    this.onToolExecutionEnd = this.onToolExecutionEnd.bind(this);
    this.executeLanguageModelCall = this.executeLanguageModelCall.bind(this);
    this.onEnd = this.onEnd.bind(this);
    this.onError = this.onError.bind(this);
    this.onAbort = this.onAbort.bind(this);
    this.onStepStart = this.onStepStart.bind(this);
    this.onLanguageModelCallEnd = this.onLanguageModelCallEnd.bind(this);
    this.onStepFinish = this.onStepFinish.bind(this);
    this.onFinish = this.onFinish.bind(this);
    this.onStepEnd = this.onStepEnd.bind(this);
  }

  /**
   * ai@7 events carry a callId and hand integrations copies of the tools;
   * ai@6 hands the real ones. ai@6 reports responses from onStepFinish, but
   * with `experimental_telemetry` on it also makes a span of each model call
   * (`ai.generateText.doGenerate`, `ai.streamText.doStream`), ended before
   * onStepFinish in generateText and after it in streamText: the run is
   * marked from here to onFinish, so those spans are not counted again.
   */
  onStart(event: { callId?: unknown; tools?: unknown }): void {
    if (event?.callId !== undefined) return;
    guardToolSet(event?.tools, this.guard);
    this.guard()?.beginModelCall();
  }

  async executeTool(event: ToolCallEvent): Promise<unknown> {
    const guard = this.guard();
    const name = event.toolCall?.toolName;
    if (!guard || typeof name !== 'string' || insideGuardedToolCall()) return event.execute();
    const runId = event.callId ?? '';
    const toolCallId = event.toolCallId ?? event.toolCall?.toolCallId ?? '';
    const pending = this.breaks.get(runId);
    if (pending) throw pending;

    let deliver!: (output: unknown) => void;
    const output = new Promise<unknown>((resolve) => (deliver = resolve));
    let ran!: (error?: { error: unknown }) => void;
    const toolFinished = new Promise<{ error: unknown } | undefined>((resolve) => (ran = resolve));

    const run = this.runOf(runId, guard);
    const call = () => guard.callTool(
      name,
      event.toolCall?.input,
      async () => {
        try {
          await event.execute();
        } catch (error) {
          ran({ error });
          throw error;
        }
        ran();
        return output;
      },
      {
        callId: toolCallId || undefined,
        attributes: { [ATTR_LOOPGUARD_FRAMEWORK]: 'ai-sdk' },
        // Hidden content is unseen, not an empty result or one argument list shared by every call.
        argsUnseen: event.recordInputs === false,
        resultUnseen: event.recordOutputs === false,
      },
    );
    const guarded = run ? context.with(run.context, call) : call();
    const settled = guarded.then(
      () => undefined,
      (err: unknown) => void (err instanceof LoopBreakError && this.breaks.set(runId, err)),
    );

    const first = await Promise.race([
      toolFinished.then((r) => ({ kind: 'ran' as const, error: r })),
      guarded.then(
        (value) => ({ kind: 'answered' as const, value }),
        (error: unknown) => ({ kind: 'failed' as const, error }),
      ),
    ]);
    if (first.kind === 'ran') {
      if (first.error) {
        // The tool failed: the guard rethrows it, or a LoopBreakError if this failure broke the run.
        const outcome = await guarded.then(() => undefined, (err: unknown) => err);
        throw outcome instanceof LoopBreakError ? outcome : first.error.error;
      }
      // The tool ran; ai@7 reads its output after this returns and hands it to onToolExecutionEnd.
      this.outputs.set(`${runId}\u0000${toolCallId}`, { deliver, answer: guarded.catch(() => undefined) });
      this.track(runId, settled);
      return undefined;
    }
    await settled;
    if (first.kind === 'failed') throw first.error;
    // Blocked before running: ai@7 cannot take a substitute output from an integration, so the
    // "not executed" message becomes the tool error the model reads.
    if (isNotExecuted(first.value)) throw new Error(first.value.message);
    return undefined;
  }

  /**
   * ai@7 awaits this hook, and the `toolOutput` it passes is the very result
   * object it then hands the model: once the guard has decided, a nudge is
   * put into that output, so the model reads it as with the other adapters.
   */
  async onToolExecutionEnd(event: ToolEndEvent): Promise<void> {
    const key = `${event?.callId ?? ''}\u0000${event?.toolCall?.toolCallId ?? ''}`;
    const entry = this.outputs.get(key);
    if (!entry) return;
    this.outputs.delete(key);
    const toolOutput = event.toolOutput;
    const output = toolOutput?.type === 'tool-result' ? toolOutput.output : undefined;
    entry.deliver(output);
    const answer = await entry.answer;
    if (toolOutput?.type === 'tool-result' && answer !== undefined && answer !== output && !isNotExecuted(answer)) toolOutput.output = answer;
  }

  async executeLanguageModelCall(event: { callId?: string; execute: () => Promise<unknown> }): Promise<unknown> {
    const runId = event.callId ?? '';
    // Decisions on the previous step's tool calls may still be in progress.
    const pending = this.deciding.get(runId);
    if (pending && pending.size > 0) await Promise.all(pending);
    const broken = this.breaks.get(runId);
    if (broken) throw broken;
    const guard = this.guard();
    const run = this.runs.get(runId);
    // A run loopguard stopped (a model response, an earlier generation) makes no further model calls.
    const inRun = <T>(fn: () => T): T => (run ? context.with(run.context, fn) : fn());
    const stopped = inRun(() => guard?.stoppedRunError());
    if (stopped) throw stopped;
    const span = activeModelSpan();
    if (span) this.modelSpans.set(runId, span);
    // The response is recorded from onLanguageModelCallEnd. Until the step ends, another LLM span of the run
    // is the same response: an LLM client instrumentation's inside the call, the span of a tracing integration
    // listed before loopguard's (whose context is not the one around this hook; @ai-sdk/otel ends its span
    // just before loopguard records, LegacyOpenTelemetry at the step's end).
    this.endModelCallMark(runId);
    const end = inRun(() => guard?.beginModelCall());
    if (end) this.modelCallMarks.set(runId, end);
    return event.execute();
  }

  /** ai@7: the step is over, and with it every span of its model call. */
  onStepEnd(event: { callId?: string }): void {
    if (event?.callId !== undefined) this.endModelCallMark(event.callId);
  }

  private endModelCallMark(runId: string): void {
    this.modelCallMarks.get(runId)?.();
    this.modelCallMarks.delete(runId);
  }

  /** ai@7 hands this the prompt of the step's model call (unless the call hides its inputs): the run's waiting message is added to it. */
  onStepStart(event: { promptMessages?: unknown; recordInputs?: unknown }): void {
    deliverToPrompt(this.guard(), event);
  }

  /** ai@7: each model call's response. The recording is synchronous up to the span, so a tracing integration's LLM span is still open. */
  async onLanguageModelCallEnd(event: { callId?: string }): Promise<void> {
    const guard = this.guard();
    const runId = event?.callId;
    if (!guard || runId === undefined) return;
    const span = this.modelSpans.get(runId);
    this.modelSpans.delete(runId);
    const run = this.runOf(runId, guard);
    const record = () => recordModelCall(guard, event, span);
    const broken = await (run ? context.with(run.context, record) : record());
    if (broken) this.breaks.set(runId, broken);
  }

  /** ai@6 reports model responses per step (ai@7 events carry a call id and are read from onLanguageModelCallEnd). */
  async onStepFinish(event: { callId?: unknown }): Promise<void> {
    const guard = this.guard();
    if (!guard || event?.callId !== undefined) return;
    await recordModelCall(guard, event, undefined);
  }

  /** ai@6: the generation is over, and with it the SDK's model-call spans (see onStart). */
  onFinish(event: { callId?: unknown }): void {
    if (event?.callId === undefined) this.guard()?.endModelCall();
  }

  onEnd(event: { callId?: string }): void {
    this.forget(event?.callId);
  }

  onError(event: { callId?: string; error?: unknown }): void {
    this.forget(event?.callId, event?.error);
  }

  onAbort(event: { callId?: string }): void {
    this.forget(event?.callId);
  }

  /**
   * A generation called outside any run is a run of its own (keyed by its
   * call id), opened at its first tool call and ended with the generation.
   */
  private runOf(runId: string, guard: ToolCallGuard): OpenRun | undefined {
    if (runId === '') return undefined;
    const open = this.runs.get(runId);
    if (open) return open;
    const run = openAutoRun(guard, 'generate');
    if (run) this.runs.set(runId, run);
    return run;
  }

  private track(runId: string, decision: Promise<void>): void {
    let set = this.deciding.get(runId);
    if (!set) this.deciding.set(runId, (set = new Set()));
    set.add(decision);
    void decision.then(() => {
      set.delete(decision);
      if (set.size === 0 && this.deciding.get(runId) === set) this.deciding.delete(runId);
    });
  }

  private forget(callId: string | undefined, error?: unknown): void {
    if (callId === undefined) return;
    const broken = this.breaks.get(callId);
    this.breaks.delete(callId);
    this.runs.get(callId)?.end(error ?? broken);
    this.runs.delete(callId);
    this.modelSpans.delete(callId);
    this.endModelCallMark(callId);
    for (const [key, { deliver }] of this.outputs) {
      if (!key.startsWith(`${callId}\u0000`)) continue;
      // A generation that ended without reporting a tool's output: finish the guard's span anyway.
      deliver(undefined);
      this.outputs.delete(key);
    }
  }
}
