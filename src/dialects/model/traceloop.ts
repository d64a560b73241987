import type { Attributes } from '@opentelemetry/api';
import * as A from '../attributes.js';
import type { ModelSpanView } from './types.js';
import { firstReason, flattenedTexts, joined, readCount } from './values.js';
import { outputMessagesText } from './genai.js';

const REQUEST_TYPES: ReadonlySet<unknown> = new Set(A.TRACELOOP_LLM_REQUEST_TYPES);

/**
 * Traceloop / OpenLLMetry LLM spans (`llm.request.type` chat or completion):
 * usage as `gen_ai.usage.prompt_tokens` / `completion_tokens`, the choices flattened as
 * `gen_ai.completion.N.content` / `.finish_reason` (`traceContent: false`
 * drops the content). Versions that moved to the GenAI names are read by
 * their names as a fallback.
 */
export function readTraceloopModelSpan(attributes: Attributes): ModelSpanView | undefined {
  if (!REQUEST_TYPES.has(attributes[A.TRACELOOP_LLM_REQUEST_TYPE])) return undefined;
  const choice = (i: number): string => `${A.TRACELOOP_COMPLETIONS_PREFIX}${i}`;
  return {
    dialect: 'traceloop',
    inputTokens: readCount(attributes, A.GENAI_USAGE_PROMPT_TOKENS, A.GENAI_USAGE_INPUT_TOKENS),
    outputTokens: readCount(attributes, A.GENAI_USAGE_COMPLETION_TOKENS, A.GENAI_USAGE_OUTPUT_TOKENS),
    finishReason: firstReason(attributes[`${choice(0)}.finish_reason`]) ?? firstReason(attributes[A.GENAI_RESPONSE_FINISH_REASONS]),
    text: joined(flattenedTexts(attributes, (i) => `${choice(i)}.content`, (i) => `${choice(i)}.role`)) ?? outputMessagesText(attributes[A.GENAI_OUTPUT_MESSAGES]),
  };
}
