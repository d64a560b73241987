import * as A from './attributes.js';
import { isRecord, parsePayload, readPayload, readString } from './payload.js';
import type { Recorded } from './payload.js';
import type { ToolSpanInput, ToolSpanView } from './types.js';

/**
 * OpenInference TOOL spans (`tool.name`, `input.value`, `output.value`).
 * Recorded from the LangChain.js instrumentation: the input is the tool's
 * run inputs, flattened to the bare value when the arguments have one field
 * (`{query:"x"}` is recorded as `x`), JSON text otherwise. So its argument
 * hashes are stable from call to call but differ from wrapTool's for the
 * same one-field call; detection within the run is unaffected.
 */
export function readOpenInferenceToolSpan(span: ToolSpanInput): Omit<ToolSpanView, 'runKey'> | undefined {
  const { attributes } = span;
  if (attributes[A.OPENINFERENCE_SPAN_KIND] !== A.OPENINFERENCE_SPAN_KIND_TOOL) return undefined;
  const tool = readString(attributes, A.OPENINFERENCE_TOOL_NAME) ?? (span.name.length > 0 ? span.name : undefined);
  if (tool === undefined) return undefined;
  const args = readPayload(attributes, A.OPENINFERENCE_INPUT_VALUE);
  const output = readPayload(attributes, A.OPENINFERENCE_OUTPUT_VALUE);
  const unwrapped = output.present ? unwrapRunOutput(output.value) : undefined;
  const result: Recorded = output.present ? { present: true, value: unwrapped?.value } : output;
  return {
    dialect: 'openinference',
    tool,
    callId: readString(attributes, A.OPENINFERENCE_TOOL_CALL_ID) ?? unwrapped?.toolCallId,
    args: args.value,
    hasArgs: args.present,
    result: result.value,
    hasResult: result.present,
  };
}

interface RunOutput {
  value: unknown;
  toolCallId?: string;
}

/**
 * The LangChain.js instrumentation records a tool run's outputs object: a
 * bare string, or `{"output": X}` as JSON where X is the tool's return value
 * or, when the tool was called with a tool call, LangChain's serialised
 * ToolMessage: `{"lc":1,"type":"constructor","id":[..,"ToolMessage"],"kwargs":{"content":..,"tool_call_id":..}}`.
 * ToolNode stringifies non-string results into the content: parsed back here.
 */
export function unwrapRunOutput(value: unknown): RunOutput {
  const inner = isRecord(value) && Object.keys(value).length === 1 && 'output' in value ? value.output : value;
  if (!isRecord(inner) || inner.lc !== 1 || !Array.isArray(inner.id) || !isRecord(inner.kwargs)) return { value: inner };
  if (inner.id[inner.id.length - 1] !== 'ToolMessage') return { value: inner };
  const { content, tool_call_id: toolCallId } = inner.kwargs;
  return {
    value: typeof content === 'string' ? parsePayload(content) : content,
    toolCallId: typeof toolCallId === 'string' ? toolCallId : undefined,
  };
}
