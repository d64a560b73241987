import * as A from './attributes.js';
import { isRecord, readPayload, readString } from './payload.js';
import type { Recorded } from './payload.js';
import type { ToolSpanInput, ToolSpanView } from './types.js';

/**
 * Traceloop / OpenLLMetry tool spans (`withTool`, `@tool`). Its decorators
 * record the call as `{"args":[...],"kwargs":{...}}`: one object argument
 * lands in kwargs, anything else in args. `traceContent: false` (or
 * TRACELOOP_TRACE_CONTENT=false) drops input and output.
 */
export function readTraceloopToolSpan(span: ToolSpanInput): Omit<ToolSpanView, 'runKey'> | undefined {
  const { attributes } = span;
  if (attributes[A.TRACELOOP_SPAN_KIND] !== A.TRACELOOP_SPAN_KIND_TOOL) return undefined;
  const tool = readString(attributes, A.TRACELOOP_ENTITY_NAME) ?? toolFromSpanName(span.name);
  if (tool === undefined) return undefined;
  const input = readPayload(attributes, A.TRACELOOP_ENTITY_INPUT);
  const args: Recorded = input.present ? { present: true, value: unwrapEntityInput(input.value) } : input;
  const result = readPayload(attributes, A.TRACELOOP_ENTITY_OUTPUT);
  return {
    dialect: 'traceloop',
    tool,
    callId: readString(attributes, A.GENAI_TOOL_CALL_ID),
    args: args.value,
    hasArgs: args.present,
    result: result.value,
    hasResult: result.present,
  };
}

/**
 * Turns the decorator's wrapper back into what the tool was called with, so
 * the same call hashes the same whether it came through Traceloop or wrapTool:
 * `{args:[], kwargs:{q:1}}` → `{q:1}`; `{args:["x"], kwargs:{}}` → `"x"`;
 * `{args:[a,b], kwargs:{}}` → `[a,b]`. Anything else is kept whole.
 */
export function unwrapEntityInput(value: unknown): unknown {
  if (!isRecord(value)) return value;
  const keys = Object.keys(value);
  if (keys.length !== 2 || !Array.isArray(value.args) || !isRecord(value.kwargs)) return value;
  const { args, kwargs } = value;
  const hasKwargs = Object.keys(kwargs).length > 0;
  if (args.length === 0) return kwargs;
  if (hasKwargs) return value;
  return args.length === 1 ? args[0] : args;
}

function toolFromSpanName(name: string): string | undefined {
  if (!name.endsWith(A.TRACELOOP_TOOL_SPAN_SUFFIX)) return undefined;
  const tool = name.slice(0, -A.TRACELOOP_TOOL_SPAN_SUFFIX.length);
  return tool.length > 0 ? tool : undefined;
}
