import * as A from './attributes.js';
import { readPayload, readString, suffixAfter } from './payload.js';
import type { ToolSpanInput, ToolSpanView } from './types.js';

/**
 * GenAI semantic-convention `execute_tool` spans: AI SDK 7's `@ai-sdk/otel`,
 * OpenLLMetry after its AI SDK transformation, any GenAI-conformant
 * instrumentation. Arguments and result are opt-in there, so often absent.
 */
export function readGenAiToolSpan(span: ToolSpanInput): Omit<ToolSpanView, 'runKey'> | undefined {
  const { attributes } = span;
  if (attributes[A.GENAI_OPERATION_NAME] !== A.GENAI_OPERATION_EXECUTE_TOOL) return undefined;
  const tool = readString(attributes, A.GENAI_TOOL_NAME) ?? suffixAfter(span.name, A.GENAI_EXECUTE_TOOL_SPAN_PREFIX);
  if (tool === undefined) return undefined;
  const args = readPayload(attributes, A.GENAI_TOOL_CALL_ARGUMENTS);
  const result = readPayload(attributes, A.GENAI_TOOL_CALL_RESULT);
  return {
    dialect: 'genai',
    tool,
    callId: readString(attributes, A.GENAI_TOOL_CALL_ID),
    args: args.value,
    hasArgs: args.present,
    result: result.value,
    hasResult: result.present,
  };
}
