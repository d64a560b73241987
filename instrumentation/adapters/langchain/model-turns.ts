import { isWrapped } from '@opentelemetry/instrumentation';
import type { ModelResponse } from '../../guard.js';
import { ATTR_LOOPGUARD_FRAMEWORK } from '../shared/guard-like.js';
import type { ToolCallGuard } from '../shared/guard-like.js';

/** The module whose `BaseChatModel` every LangChain chat model extends. */
export const CHAT_MODELS_MODULE = '@langchain/core/language_models/chat_models';

type GenerateFn = (this: unknown, messages: unknown[][], options?: unknown, callbacks?: unknown) => Promise<LLMResultLike>;
interface MessageLike {
  content?: unknown;
  tool_calls?: unknown[];
  usage_metadata?: { input_tokens?: unknown; output_tokens?: unknown };
  response_metadata?: Record<string, unknown>;
}
interface GenerationLike {
  text?: unknown;
  message?: MessageLike;
  generationInfo?: Record<string, unknown>;
}
interface LLMResultLike {
  generations?: GenerationLike[][];
}
export interface ChatModelsModule {
  BaseChatModel?: { prototype: { generate: GenerateFn } };
}
interface Host {
  wrapMethod<T extends object>(target: T, name: keyof T & string, wrapper: (original: never) => unknown): void;
  unwrapMethod<T extends object>(target: T, name: keyof T & string): void;
}

const FRAMEWORK = { [ATTR_LOOPGUARD_FRAMEWORK]: 'langchain' };

function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Providers put the finish reason in different places (OpenAI `finish_reason`, Anthropic `stop_reason`, Gemini `finishReason`). */
function finishReasonOf(generation: GenerationLike): string | undefined {
  for (const source of [generation.message?.response_metadata, generation.generationInfo]) {
    for (const key of ['finish_reason', 'stop_reason', 'finishReason']) {
      const value = source?.[key];
      if (typeof value === 'string') return value;
    }
  }
  // Not reported: a message asking for tools is work, not more writing.
  return (generation.message?.tool_calls?.length ?? 0) > 0 ? 'tool_calls' : undefined;
}

function textOf(generation: GenerationLike): string | undefined {
  if (typeof generation.text === 'string') return generation.text;
  const content = generation.message?.content;
  return typeof content === 'string' ? content : undefined;
}

/** What one chat generation reports, as loopguard records it. */
export function modelResponseOf(generation: GenerationLike): ModelResponse {
  const usage = generation.message?.usage_metadata;
  return {
    outputTokens: numberOf(usage?.output_tokens),
    inputTokens: numberOf(usage?.input_tokens),
    finishReason: finishReasonOf(generation),
    text: textOf(generation),
  };
}

/**
 * Every chat model call (`invoke`, LangGraph's model node, `generate`)
 * goes through `BaseChatModel.prototype.generate` with the message lists
 * it sends. Inside a run: a stopped run's call fails with the
 * LoopBreakError, the run's waiting message (budget notice, truncation
 * recovery, nudge) is appended to this call's messages as a user message,
 * and each list's response is recorded. `stream()` bypasses `generate`, so
 * streamed calls are not seen.
 */
export function patchChatModels(moduleExports: ChatModelsModule, host: Host, currentGuard: () => ToolCallGuard | undefined): ChatModelsModule {
  const proto = moduleExports?.BaseChatModel?.prototype;
  if (!proto || typeof proto.generate !== 'function' || isWrapped(proto.generate)) return moduleExports;
  host.wrapMethod(proto, 'generate', (original: GenerateFn) =>
    async function loopguardGenerate(this: unknown, messages: unknown[][], options?: unknown, callbacks?: unknown): Promise<LLMResultLike> {
      const guard = currentGuard();
      if (!guard || !Array.isArray(messages)) return original.call(this, messages, options, callbacks);
      const stopped = guard.stoppedRunError();
      if (stopped) throw stopped;
      const message = guard.takeModelMessage();
      const sent = message === undefined ? messages : messages.map((list) => [...list, { role: 'user', content: message }]);
      // An LLM client instrumentation's span inside the call (the OpenAI SDK's under ChatOpenAI) is not counted again.
      const end = guard.beginModelCall();
      let result: LLMResultLike;
      try {
        result = await original.call(this, sent, options, callbacks);
      } finally {
        end();
      }
      for (const list of result?.generations ?? []) {
        const generation = list?.[0];
        if (generation) await guard.recordModelResponse(modelResponseOf(generation), { attributes: FRAMEWORK });
      }
      return result;
    },
  );
  return moduleExports;
}

export function unpatchChatModels(moduleExports: ChatModelsModule | undefined, host: Host): void {
  const proto = moduleExports?.BaseChatModel?.prototype;
  if (proto && isWrapped(proto.generate)) host.unwrapMethod(proto, 'generate');
}
