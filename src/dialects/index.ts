import { readAiSdkToolSpan } from './ai-sdk.js';
import { readGenAiToolSpan } from './genai.js';
import { readLoopguardToolSpan } from './loopguard.js';
import { isMcpServerToolCall, readMcpToolSpan } from './mcp.js';
import { readOpenInferenceToolSpan } from './openinference.js';
import { readRunKey } from './run-key.js';
import { readTraceloopToolSpan } from './traceloop.js';
import type { ToolSpanInput, ToolSpanView } from './types.js';

export type { Dialect, ToolSpanInput, ToolSpanView } from './types.js';
export { readRunKey } from './run-key.js';
export { isMcpServerToolCall } from './mcp.js';

type Reader = (span: ToolSpanInput) => Omit<ToolSpanView, 'runKey'> | undefined;

/**
 * Most specific first. One span can carry several dialects (OpenInference's
 * and OpenLLMetry's processors add their names beside the AI SDK's; an MCP
 * client span also says `execute_tool`), and the reader of the library that
 * made the span knows best where its payloads are.
 */
const READERS: readonly Reader[] = [
  readLoopguardToolSpan,
  readMcpToolSpan,
  readAiSdkToolSpan,
  readGenAiToolSpan,
  readOpenInferenceToolSpan,
  readTraceloopToolSpan,
];

/**
 * Recognises a tool span made by loopguard or another instrumentation and
 * extracts what detection needs; undefined for any other span. Never throws:
 * it runs in a span processor, on spans it does not control.
 */
export function readToolSpan(span: ToolSpanInput): ToolSpanView | undefined {
  try {
    // The server half of an MCP call also says `execute_tool`; only the client half counts.
    if (isMcpServerToolCall(span)) return undefined;
    for (const read of READERS) {
      const view = read(span);
      if (view === undefined) continue;
      const runKey = readRunKey(span.attributes);
      // Every reader returns a fresh object: adding the key costs less than a spread copy on every span.
      if (runKey !== undefined) (view as ToolSpanView).runKey = runKey;
      return view;
    }
  } catch {
    // A malformed foreign span is not loopguard's to fail on.
  }
  return undefined;
}
