import * as A from './attributes.js';
import { isRecord, readPayload, readString } from './payload.js';
import type { Recorded } from './payload.js';
import { SPAN_KIND_SERVER } from './types.js';
import type { ToolSpanInput, ToolSpanView } from './types.js';

/**
 * Traceloop / OpenLLMetry tool spans (`withTool`, `@tool`). Its decorators
 * record the call as `{"args":[...],"kwargs":{...}}`: one object argument
 * lands in kwargs, anything else in args. Its MCP instrumentation names
 * client calls `{tool}.tool` (kind CLIENT) with input
 * `{"tool_name":..,"arguments":{..}}` and output `{"result":..,"is_error"?}`.
 * `traceContent: false` (or TRACELOOP_TRACE_CONTENT=false) drops input and
 * output. A SERVER-kind tool span is the server half of an MCP call whose
 * client half is in the same trace, so it is not read.
 */
export function readTraceloopToolSpan(span: ToolSpanInput): Omit<ToolSpanView, 'runKey'> | undefined {
  const { attributes } = span;
  if (attributes[A.TRACELOOP_SPAN_KIND] !== A.TRACELOOP_SPAN_KIND_TOOL || span.kind === SPAN_KIND_SERVER) return undefined;
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
 * `{args:[a,b], kwargs:{}}` → `[a,b]`; `{tool_name, arguments}` → `arguments`.
 * Anything else is kept whole.
 */
export function unwrapEntityInput(value: unknown): unknown {
  if (!isRecord(value)) return value;
  const keys = Object.keys(value);
  // The MCP instrumentation's form: the tool's own arguments are under `arguments`.
  if (typeof value.tool_name === 'string' && keys.every((k) => k === 'tool_name' || k === 'arguments')) return value.arguments ?? {};
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
