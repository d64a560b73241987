import { trace, type Span } from '@opentelemetry/api';
import { readModelTurn } from '../../../src/model-span.js';
import type { SpanShape } from '../../../src/span-shape.js';
import { ATTR_LOOPGUARD_FRAMEWORK } from '../shared/guard-like.js';
import type { ToolCallGuard } from '../shared/guard-like.js';
import type { LoopBreakError } from '../../../src/breaker.js';
import type { ModelResponse } from '../../guard.js';

/**
 * The AI SDK's model responses, for loopguard's model detectors, and the
 * channel for their messages:
 *
 * - ai@7 reports each model call to its telemetry integrations
 *   (`onLanguageModelCallEnd`: finish reason, usage, content parts), and
 *   hands `onStepStart` the prompt array the step's model call is then made
 *   with: a waiting message is appended to it, for that call only. A call
 *   that hides its inputs from telemetry hands over a copy instead; its
 *   message goes through `prepareStep` (v7-hidden-prompt.ts).
 * - ai@6 reports each step to `onStepFinish`; its step-start event carries no
 *   prompt, so a message goes through the loop's `prepareStep` instead (the
 *   `generateText`/`streamText`/`ToolLoopAgent` wrappers of v6-stop.ts).
 */

interface ContentPart {
  type?: string;
  text?: unknown;
}
interface ModelCallEnd {
  callId?: unknown;
  modelId?: string;
  finishReason?: unknown;
  usage?: { inputTokens?: unknown; outputTokens?: unknown };
  content?: readonly ContentPart[];
  /** ai@6 step results carry the text directly. */
  text?: unknown;
}

const FRAMEWORK = { [ATTR_LOOPGUARD_FRAMEWORK]: 'ai-sdk' };

function tokens(value: unknown): number | undefined {
  // ai@6 and ai@7 report numbers; some providers' usage objects carry `{ total }`.
  if (typeof value === 'number') return value;
  const total = (value as { total?: unknown } | null | undefined)?.total;
  return typeof total === 'number' ? total : undefined;
}

function textOf(event: ModelCallEnd): string | undefined {
  if (typeof event.text === 'string') return event.text;
  const texts = (event.content ?? []).filter((p) => p?.type === 'text' && typeof p.text === 'string').map((p) => p.text as string);
  return texts.length === 0 ? undefined : texts.join('');
}

/** What one model call (ai@7) or step (ai@6) reported, as loopguard records it. */
export function modelResponseOf(event: ModelCallEnd): ModelResponse {
  return {
    outputTokens: tokens(event.usage?.outputTokens),
    inputTokens: tokens(event.usage?.inputTokens),
    finishReason: typeof event.finishReason === 'string' ? event.finishReason : undefined,
    text: textOf(event),
    model: typeof event.modelId === 'string' ? event.modelId : undefined,
  };
}

/**
 * The framework's own LLM span around a model call (a tracing integration
 * such as @ai-sdk/otel, which runs loopguard's hook inside its context), so
 * the response is recorded on it rather than on a second span.
 */
export function activeModelSpan(): Span | undefined {
  const span = trace.getActiveSpan() as (Span & Partial<SpanShape>) | undefined;
  return span?.attributes && span.isRecording() && readModelTurn(span.attributes) !== undefined ? span : undefined;
}

/** Records a model call's response; resolves to the break it caused, if any. */
export function recordModelCall(guard: ToolCallGuard, event: ModelCallEnd, span: Span | undefined): Promise<LoopBreakError | undefined> {
  return guard.recordModelResponse(modelResponseOf(event), { span, attributes: FRAMEWORK });
}

/**
 * ai@7: appends the run's waiting message to the prompt the step's model call
 * is about to be made with. With the call's `recordInputs: false`, ai@7 hands
 * integrations a filtered copy of the event (it says so: `recordInputs` is on
 * every event) whose `promptMessages` is a fresh empty array: the message,
 * handed out once, would be pushed where no model reads it. It is then left
 * waiting, as it is for an empty array, which no model call is made with.
 */
export function deliverToPrompt(guard: ToolCallGuard | undefined, event: { promptMessages?: unknown; recordInputs?: unknown }): void {
  const prompt = event?.promptMessages;
  if (!guard || !Array.isArray(prompt) || prompt.length === 0 || event.recordInputs === false) return;
  const message = guard.takeModelMessage();
  if (message !== undefined) prompt.push({ role: 'user', content: [{ type: 'text', text: message }] });
}

type PrepareStep = (options: { messages: unknown[] } & Record<string, unknown>) => unknown;

/**
 * ai@6: the loop's `prepareStep`, wrapped so a step of a stopped run fails
 * with the LoopBreakError and the run's waiting message is added to the
 * step's messages (this step only: the next one is built from the history).
 */
export function prepareStepWithModelTurns(prepareStep: unknown, guard: () => ToolCallGuard | undefined): PrepareStep {
  return async function loopguardPrepareStep(options) {
    const current = guard();
    const stopped = current?.stoppedRunError();
    if (stopped) throw stopped;
    const result = (typeof prepareStep === 'function' ? await (prepareStep as PrepareStep)(options) : undefined) as { messages?: unknown[] } | undefined;
    const message = current?.takeModelMessage();
    if (message === undefined) return result;
    return { ...result, messages: [...(result?.messages ?? options.messages), { role: 'user', content: message }] };
  };
}
