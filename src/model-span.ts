import type { Attributes } from '@opentelemetry/api';
import type { ModelTurn } from './detectors/model-turns.js';
import { textSketch } from './fingerprint/sketch.js';
import * as sc from './semconv.js';

const MODEL_OPERATIONS: ReadonlySet<unknown> = new Set([sc.GEN_AI_OPERATION_CHAT, sc.GEN_AI_OPERATION_TEXT_COMPLETION, sc.GEN_AI_OPERATION_GENERATE_CONTENT]);

/** The similarity sketch of a response text (`loopguard.output.sketch`): the text as one JSON string value; none for a short answer. */
export function outputSketch(text: string): string | undefined {
  return textSketch(JSON.stringify(text));
}

/** The text parts of `gen_ai.output.messages` (`[{ role, parts: [{ type: 'text', content }] }]`), when an instrumentation recorded them. */
function outputText(messages: unknown): string | undefined {
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
  return texts.length === 0 ? undefined : texts.join('\n');
}

/**
 * The model response an LLM span records (GenAI semantic conventions:
 * `gen_ai.operation.name` chat, text_completion or generate_content), or
 * undefined for any other span. The text is known by its sketch, set by
 * whoever saw it, or worked out from the captured output messages.
 */
export function readModelTurn(attributes: Attributes): ModelTurn | undefined {
  if (!MODEL_OPERATIONS.has(attributes[sc.ATTR_GEN_AI_OPERATION_NAME])) return undefined;
  const output = attributes[sc.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS];
  const reasons = attributes[sc.ATTR_GEN_AI_RESPONSE_FINISH_REASONS];
  const first = Array.isArray(reasons) ? reasons[0] : reasons;
  const own = attributes[sc.ATTR_LOOPGUARD_OUTPUT_SKETCH];
  const text = typeof own === 'string' ? undefined : outputText(attributes[sc.ATTR_GEN_AI_OUTPUT_MESSAGES]);
  return {
    outputTokens: typeof output === 'number' && Number.isFinite(output) && output > 0 ? output : 0,
    finishReason: typeof first === 'string' ? first.toLowerCase() : undefined,
    sketch: typeof own === 'string' ? own : text === undefined ? undefined : outputSketch(text),
  };
}
