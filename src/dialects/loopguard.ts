import * as A from './attributes.js';
import { readPayload, readString, suffixAfter } from './payload.js';
import type { ToolSpanInput, ToolSpanView } from './types.js';

/**
 * Spans loopguard created itself already carry `loopguard.args.hash`: the
 * processor reads the hashes directly, so no payload is returned here
 * (`hasArgs` says the arguments were fingerprinted, `hasResult` whether the
 * result hash is on the span yet). A span loopguard adopted from another
 * instrumentation may be ended by its owner before loopguard saw the result:
 * then the result that instrumentation recorded is read instead.
 */
export function readLoopguardToolSpan(span: ToolSpanInput): Omit<ToolSpanView, 'runKey'> | undefined {
  const { attributes } = span;
  if (attributes[A.LOOPGUARD_ARGS_HASH] === undefined) return undefined;
  const tool = readString(attributes, A.GENAI_TOOL_NAME) ?? suffixAfter(span.name, A.GENAI_EXECUTE_TOOL_SPAN_PREFIX) ?? span.name;
  const view: Omit<ToolSpanView, 'runKey'> = {
    dialect: 'loopguard',
    tool,
    callId: readString(attributes, A.GENAI_TOOL_CALL_ID),
    hasArgs: true,
    hasResult: attributes[A.LOOPGUARD_RESULT_HASH] !== undefined,
  };
  if (view.hasResult) return view;
  const recorded = readPayload(attributes, A.GENAI_TOOL_CALL_RESULT);
  return recorded.present ? { ...view, hasResult: true, result: recorded.value } : view;
}
