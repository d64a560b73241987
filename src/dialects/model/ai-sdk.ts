import type { Attributes } from '@opentelemetry/api';
import * as A from '../attributes.js';
import type { ModelSpanView } from './types.js';
import { firstReason, readCount } from './values.js';

const MODEL_CALLS: ReadonlySet<unknown> = new Set(A.AI_SDK_MODEL_CALL_OPERATIONS);

/**
 * The Vercel AI SDK's own model-call spans (`ai.generateText.doGenerate`,
 * `ai.streamText.doStream` and the object variants; ai@4..6 built-in
 * telemetry, `LegacyOpenTelemetry` with ai@7). The outer `ai.generateText`
 * span repeats the sums of all its steps and is not a response of its own.
 * Finish reasons are the SDK's (`length`, `tool-calls`); the text is there
 * unless `recordOutputs: false`.
 */
export function readAiSdkModelSpan(attributes: Attributes): ModelSpanView | undefined {
  if (!MODEL_CALLS.has(attributes[A.AI_SDK_OPERATION_ID])) return undefined;
  const text = attributes[A.AI_SDK_RESPONSE_TEXT];
  return {
    dialect: 'ai-sdk',
    inputTokens: readCount(attributes, A.AI_SDK_USAGE_INPUT_TOKENS, A.AI_SDK_USAGE_PROMPT_TOKENS, A.GENAI_USAGE_INPUT_TOKENS),
    outputTokens: readCount(attributes, A.AI_SDK_USAGE_OUTPUT_TOKENS, A.AI_SDK_USAGE_COMPLETION_TOKENS, A.GENAI_USAGE_OUTPUT_TOKENS),
    finishReason: firstReason(attributes[A.AI_SDK_RESPONSE_FINISH_REASON]) ?? firstReason(attributes[A.GENAI_RESPONSE_FINISH_REASONS]),
    text: typeof text === 'string' && text.length > 0 ? text : undefined,
  };
}
