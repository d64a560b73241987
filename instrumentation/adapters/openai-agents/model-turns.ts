import type { ModelResponse } from '../../guard.js';
import { ATTR_LOOPGUARD_FRAMEWORK } from '../shared/guard-like.js';
import type { ToolCallGuard } from '../shared/guard-like.js';

/**
 * The OpenAI Agents SDK calls a `Model`'s `getResponse(request)` once per
 * turn (`getStreamedResponse` in a streamed run). loopguard wraps both on
 * the model objects the runner uses (an agent's own model object, and those
 * the runner's model provider resolves model names to): inside a run, a
 * stopped run's call fails with the LoopBreakError, the run's waiting
 * message is added to this request's input as a user message, and the
 * response (a streamed one's `response_done` event) is recorded.
 */

/** Marks a model object whose `getResponse` already goes through loopguard. */
const GUARDED = Symbol.for('loopguard.openai-agents.model');

interface OutputItem {
  type?: string;
  role?: string;
  content?: Array<{ type?: string; text?: unknown }>;
}
interface ResponseLike {
  usage?: { inputTokens?: unknown; outputTokens?: unknown };
  output?: OutputItem[];
  /** The provider's raw response: Chat Completions `choices[].finish_reason`, Responses `incomplete_details.reason`. */
  providerData?: { choices?: Array<{ finish_reason?: unknown }>; incomplete_details?: { reason?: unknown } | null };
}
interface RequestLike {
  input?: unknown;
}
type GetResponse = (this: unknown, request: RequestLike) => Promise<ResponseLike>;
type GetStreamedResponse = (this: unknown, request: RequestLike) => AsyncIterable<{ type?: string; response?: ResponseLike }>;
interface ModelLike {
  getResponse?: unknown;
  getStreamedResponse?: unknown;
}
interface ModelProviderLike {
  getModel?: unknown;
}

const FRAMEWORK = { [ATTR_LOOPGUARD_FRAMEWORK]: 'openai-agents' };

function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function finishReasonOf(response: ResponseLike): string | undefined {
  const raw = response.providerData;
  const reported = raw?.choices?.[0]?.finish_reason ?? raw?.incomplete_details?.reason;
  if (typeof reported === 'string') return reported;
  // Not reported: a response calling tools is work, not more writing.
  return response.output?.some((item) => item?.type === 'function_call') ? 'tool_calls' : undefined;
}

function textOf(response: ResponseLike): string | undefined {
  const texts: string[] = [];
  for (const item of response.output ?? []) {
    if (item?.type !== 'message') continue;
    for (const part of item.content ?? []) if (part?.type === 'output_text' && typeof part.text === 'string') texts.push(part.text);
  }
  return texts.length === 0 ? undefined : texts.join('\n');
}

/** What one model response reports, as loopguard records it. */
export function modelResponseOf(response: ResponseLike): ModelResponse {
  return {
    outputTokens: numberOf(response.usage?.outputTokens),
    inputTokens: numberOf(response.usage?.inputTokens),
    finishReason: finishReasonOf(response),
    text: textOf(response),
  };
}

/** The request with the message appended to its input (a string input becomes the user message it stands for). */
function withMessage(request: RequestLike, message: string): RequestLike {
  const input = typeof request.input === 'string' ? [{ type: 'message', role: 'user', content: request.input }] : Array.isArray(request.input) ? request.input : [];
  return { ...request, input: [...input, { type: 'message', role: 'user', content: message }] };
}

/** Before a model call of a run: a stopped run's call fails, and the waiting message goes into the request. */
function requestFor(guard: ToolCallGuard, request: RequestLike): RequestLike {
  const stopped = guard.stoppedRunError();
  if (stopped) throw stopped;
  const message = guard.takeModelMessage();
  return message === undefined ? request : withMessage(request, message);
}

function record(guard: ToolCallGuard, response: ResponseLike | undefined): Promise<unknown> {
  return response ? guard.recordModelResponse(modelResponseOf(response), { attributes: FRAMEWORK }) : Promise.resolve();
}

/** Wraps the model object's `getResponse` and `getStreamedResponse` in place, once (the runner holds the object itself). */
export function guardModel(model: unknown, currentGuard: () => ToolCallGuard | undefined): void {
  if (typeof model !== 'object' || model === null) return;
  const target = model as ModelLike & Record<PropertyKey, unknown>;
  if (typeof target.getResponse !== 'function' || target[GUARDED]) return;
  Object.defineProperty(target, GUARDED, { value: true });
  const getResponse = target.getResponse as GetResponse;
  target.getResponse = async function loopguardGetResponse(this: unknown, request: RequestLike): Promise<ResponseLike> {
    const guard = currentGuard();
    if (!guard) return getResponse.call(this, request);
    const sent = requestFor(guard, request);
    // An LLM client instrumentation's span inside the call (the OpenAI SDK's) is not counted again.
    const end = guard.beginModelCall();
    let response: ResponseLike;
    try {
      response = await getResponse.call(this, sent);
    } finally {
      end();
    }
    await record(guard, response);
    return response;
  } satisfies GetResponse;
  if (typeof target.getStreamedResponse !== 'function') return;
  const getStreamedResponse = target.getStreamedResponse as GetStreamedResponse;
  target.getStreamedResponse = async function* loopguardGetStreamedResponse(this: unknown, request: RequestLike) {
    const guard = currentGuard();
    if (!guard) return yield* getStreamedResponse.call(this, request);
    const sent = requestFor(guard, request);
    const end = guard.beginModelCall();
    try {
      for await (const event of getStreamedResponse.call(this, sent)) {
        if (event?.type === 'response_done') await record(guard, event.response);
        yield event;
      }
    } finally {
      end();
    }
  } satisfies GetStreamedResponse;
}

/** Wraps the provider's `getModel` in place, once, so the models it resolves names to are guarded. */
export function guardModelProvider(provider: unknown, currentGuard: () => ToolCallGuard | undefined): void {
  if (typeof provider !== 'object' || provider === null) return;
  const record = provider as ModelProviderLike & Record<PropertyKey, unknown>;
  if (typeof record.getModel !== 'function' || record[GUARDED]) return;
  const original = record.getModel as (this: unknown, name?: string) => unknown;
  Object.defineProperty(record, GUARDED, { value: true });
  record.getModel = async function loopguardGetModel(this: unknown, name?: string): Promise<unknown> {
    const model = await original.call(this, name);
    guardModel(model, currentGuard);
    return model;
  };
}
