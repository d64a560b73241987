import * as A from './attributes.js';
import { readPayload, readString, suffixAfter } from './payload.js';
import { SPAN_KIND_SERVER } from './types.js';
import type { ToolSpanInput, ToolSpanView } from './types.js';

/**
 * MCP `tools/call` spans per the GenAI MCP conventions (`mcp.method.name`,
 * `gen_ai.tool.name`, `jsonrpc.request.id`, name `tools/call {tool}`), and the
 * older draft names (`mcp.tool.name`, `mcp.request.id`).
 *
 * Server-side spans (kind SERVER) are not read: the client span of the same
 * call sits in the same trace, and counting both would make every call look
 * like a repeat. A server-only deployment should instrument its client side.
 */
export function readMcpToolSpan(span: ToolSpanInput): Omit<ToolSpanView, 'runKey'> | undefined {
  const { attributes } = span;
  if (attributes[A.MCP_METHOD_NAME] !== A.MCP_METHOD_TOOLS_CALL) return undefined;
  if (span.kind === SPAN_KIND_SERVER) return undefined;
  const tool =
    readString(attributes, A.GENAI_TOOL_NAME) ??
    readString(attributes, A.MCP_TOOL_NAME_DRAFT) ??
    suffixAfter(span.name, A.MCP_TOOLS_CALL_SPAN_PREFIX);
  if (tool === undefined) return undefined;
  const args = readPayload(attributes, A.GENAI_TOOL_CALL_ARGUMENTS);
  const result = readPayload(attributes, A.GENAI_TOOL_CALL_RESULT);
  return {
    dialect: 'mcp',
    tool,
    callId:
      readString(attributes, A.GENAI_TOOL_CALL_ID) ??
      readString(attributes, A.JSONRPC_REQUEST_ID) ??
      readString(attributes, A.MCP_REQUEST_ID_DRAFT),
    args: args.value,
    hasArgs: args.present,
    result: result.value,
    hasResult: result.present,
  };
}

/** True for any MCP span that is a server-side `tools/call`: callers may want to skip it without reading further. */
export function isMcpServerToolCall(span: ToolSpanInput): boolean {
  return span.attributes[A.MCP_METHOD_NAME] === A.MCP_METHOD_TOOLS_CALL && span.kind === SPAN_KIND_SERVER;
}
