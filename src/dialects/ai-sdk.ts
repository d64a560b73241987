import * as A from './attributes.js';
import { readPayload, readString } from './payload.js';
import type { Recorded } from './payload.js';
import type { ToolSpanInput, ToolSpanView } from './types.js';

/**
 * Vercel AI SDK `ai.toolCall` spans (built-in telemetry of ai@4..6, and
 * `LegacyOpenTelemetry` from `@ai-sdk/otel` with ai@7). `recordInputs: false`
 * drops `ai.toolCall.args`, `recordOutputs: false` drops `ai.toolCall.result`.
 * OpenLLMetry's span processor may already have copied them to the GenAI
 * names by the time a collector sees the span, so those are read as a fallback.
 */
export function readAiSdkToolSpan(span: ToolSpanInput): Omit<ToolSpanView, 'runKey'> | undefined {
  const { attributes } = span;
  const tool = readString(attributes, A.AI_SDK_TOOL_CALL_NAME);
  if (tool === undefined) return undefined;
  const args = firstPresent(readPayload(attributes, A.AI_SDK_TOOL_CALL_ARGS), readPayload(attributes, A.GENAI_TOOL_CALL_ARGUMENTS));
  const result = firstPresent(readPayload(attributes, A.AI_SDK_TOOL_CALL_RESULT), readPayload(attributes, A.GENAI_TOOL_CALL_RESULT));
  return {
    dialect: 'ai-sdk',
    tool,
    callId: readString(attributes, A.AI_SDK_TOOL_CALL_ID) ?? readString(attributes, A.GENAI_TOOL_CALL_ID),
    args: args.value,
    hasArgs: args.present,
    result: result.value,
    hasResult: result.present,
  };
}

function firstPresent(a: Recorded, b: Recorded): Recorded {
  return a.present ? a : b;
}
