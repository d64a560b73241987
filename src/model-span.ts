import type { Attributes } from '@opentelemetry/api';
import type { ModelTurn } from './detectors/model-turns.js';
import * as sc from './semconv.js';

const MODEL_OPERATIONS: ReadonlySet<unknown> = new Set([sc.GEN_AI_OPERATION_CHAT, sc.GEN_AI_OPERATION_TEXT_COMPLETION, sc.GEN_AI_OPERATION_GENERATE_CONTENT]);

/**
 * The model response an LLM span records (GenAI semantic conventions:
 * `gen_ai.operation.name` chat, text_completion or generate_content), or
 * undefined for any other span.
 */
export function readModelTurn(attributes: Attributes): ModelTurn | undefined {
  if (!MODEL_OPERATIONS.has(attributes[sc.ATTR_GEN_AI_OPERATION_NAME])) return undefined;
  const output = attributes[sc.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS];
  const reasons = attributes[sc.ATTR_GEN_AI_RESPONSE_FINISH_REASONS];
  const first = Array.isArray(reasons) ? reasons[0] : reasons;
  return {
    outputTokens: typeof output === 'number' && Number.isFinite(output) && output > 0 ? output : 0,
    finishReason: typeof first === 'string' ? first.toLowerCase() : undefined,
  };
}
