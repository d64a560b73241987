import type { Attributes } from '@opentelemetry/api';
import * as A from '../attributes.js';
import type { ModelSpanView } from './types.js';
import { firstReason, joined, readCount } from './values.js';

const OPERATIONS: ReadonlySet<unknown> = new Set([A.GENAI_OPERATION_CHAT, A.GENAI_OPERATION_TEXT_COMPLETION, A.GENAI_OPERATION_GENERATE_CONTENT]);

/**
 * GenAI semantic-convention inference spans (`gen_ai.operation.name` chat,
 * text_completion, generate_content): AI SDK 7's `@ai-sdk/otel`, OpenLLMetry
 * since it moved to these names, any conformant instrumentation. Agent and
 * step spans (`invoke_agent`, `agent_step`) also carry usage and finish
 * reasons, summed over their responses; they are not read.
 */
export function readGenAiModelSpan(attributes: Attributes): ModelSpanView | undefined {
  if (!OPERATIONS.has(attributes[A.GENAI_OPERATION_NAME])) return undefined;
  return {
    dialect: 'genai',
    inputTokens: readCount(attributes, A.GENAI_USAGE_INPUT_TOKENS, A.GENAI_USAGE_PROMPT_TOKENS),
    outputTokens: readCount(attributes, A.GENAI_USAGE_OUTPUT_TOKENS, A.GENAI_USAGE_COMPLETION_TOKENS),
    finishReason: firstReason(attributes[A.GENAI_RESPONSE_FINISH_REASONS]),
    text: outputMessagesText(attributes[A.GENAI_OUTPUT_MESSAGES]),
  };
}

/** The text parts of `gen_ai.output.messages` (`[{ role, parts: [{ type: 'text', content }] }]`). */
export function outputMessagesText(messages: unknown): string | undefined {
  if (typeof messages !== 'string') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(messages);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed)) return undefined;
  const texts: string[] = [];
  for (const message of parsed) {
    const parts = (message as { parts?: unknown } | null)?.parts;
    if (!Array.isArray(parts)) continue;
    for (const part of parts) {
      const p = part as { type?: unknown; content?: unknown } | null;
      if (p?.type === 'text' && typeof p.content === 'string') texts.push(p.content);
    }
  }
  return joined(texts);
}
