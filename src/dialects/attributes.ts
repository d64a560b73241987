/**
 * Attribute names other instrumentations put on their tool and LLM spans. They are
 * read, never written: loopguard's own names live in ../semconv.ts. Each group
 * names the library whose emitted spans it was checked against.
 */

// --- OpenTelemetry GenAI semantic conventions (execute_tool spans) ---
export const GENAI_OPERATION_NAME = 'gen_ai.operation.name';
export const GENAI_OPERATION_EXECUTE_TOOL = 'execute_tool';
export const GENAI_TOOL_NAME = 'gen_ai.tool.name';
export const GENAI_TOOL_CALL_ID = 'gen_ai.tool.call.id';
export const GENAI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments';
export const GENAI_TOOL_CALL_RESULT = 'gen_ai.tool.call.result';
export const GENAI_CONVERSATION_ID = 'gen_ai.conversation.id';
export const GENAI_EXECUTE_TOOL_SPAN_PREFIX = 'execute_tool ';

// --- Vercel AI SDK `ai.toolCall` spans (ai@4..6 built-in telemetry, @ai-sdk/otel LegacyOpenTelemetry) ---
export const AI_SDK_TOOL_CALL_SPAN_NAME = 'ai.toolCall';
export const AI_SDK_TOOL_CALL_NAME = 'ai.toolCall.name';
export const AI_SDK_TOOL_CALL_ID = 'ai.toolCall.id';
export const AI_SDK_TOOL_CALL_ARGS = 'ai.toolCall.args';
export const AI_SDK_TOOL_CALL_RESULT = 'ai.toolCall.result';
/** `experimental_telemetry.metadata` / `telemetry.metadata` entries become `ai.telemetry.metadata.<key>`. */
export const AI_SDK_TELEMETRY_METADATA_PREFIX = 'ai.telemetry.metadata.';

// --- OpenInference (Arize) ---
export const OPENINFERENCE_SPAN_KIND = 'openinference.span.kind';
export const OPENINFERENCE_SPAN_KIND_TOOL = 'TOOL';
export const OPENINFERENCE_TOOL_NAME = 'tool.name';
/** Set by some OpenInference instrumentations on TOOL spans; absent in the LangChain.js one. */
export const OPENINFERENCE_TOOL_CALL_ID = 'tool_call.id';
export const OPENINFERENCE_INPUT_VALUE = 'input.value';
export const OPENINFERENCE_OUTPUT_VALUE = 'output.value';
export const OPENINFERENCE_SESSION_ID = 'session.id';

// --- Traceloop / OpenLLMetry ---
export const TRACELOOP_SPAN_KIND = 'traceloop.span.kind';
export const TRACELOOP_SPAN_KIND_TOOL = 'tool';
export const TRACELOOP_ENTITY_NAME = 'traceloop.entity.name';
export const TRACELOOP_ENTITY_INPUT = 'traceloop.entity.input';
export const TRACELOOP_ENTITY_OUTPUT = 'traceloop.entity.output';
/** `withAssociationProperties({...})` / `Associations.set` entries become `traceloop.association.properties.<key>`. */
export const TRACELOOP_ASSOCIATION_PROPERTIES_PREFIX = 'traceloop.association.properties.';
/** `withTool({ name })` names its span `{name}.tool`. */
export const TRACELOOP_TOOL_SPAN_SUFFIX = '.tool';

// --- MCP (GenAI MCP semantic conventions, plus the older draft names Sentry and others still emit) ---
export const MCP_METHOD_NAME = 'mcp.method.name';
export const MCP_METHOD_TOOLS_CALL = 'tools/call';
export const MCP_TOOLS_CALL_SPAN_PREFIX = 'tools/call ';
export const JSONRPC_REQUEST_ID = 'jsonrpc.request.id';
/** Draft-convention names (semantic-conventions PR 2083), still emitted by Sentry's MCP server integration. */
export const MCP_TOOL_NAME_DRAFT = 'mcp.tool.name';
export const MCP_REQUEST_ID_DRAFT = 'mcp.request.id';

// --- LLM spans: one model response each (readers in ./model/) ---
export const GENAI_OPERATION_CHAT = 'chat';
export const GENAI_OPERATION_TEXT_COMPLETION = 'text_completion';
export const GENAI_OPERATION_GENERATE_CONTENT = 'generate_content';
export const GENAI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const GENAI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
/** The pre-1.27 GenAI names, still set by OpenLLMetry's instrumentations. */
export const GENAI_USAGE_PROMPT_TOKENS = 'gen_ai.usage.prompt_tokens';
export const GENAI_USAGE_COMPLETION_TOKENS = 'gen_ai.usage.completion_tokens';
export const GENAI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
/** `[{ role, parts: [{ type: 'text', content }] }]` as JSON text, when content capture is on. */
export const GENAI_OUTPUT_MESSAGES = 'gen_ai.output.messages';
/** The AI SDK's span for one call of the provider (one model response); the outer `ai.generateText` span sums all steps and is not read. */
export const AI_SDK_OPERATION_ID = 'ai.operationId';
export const AI_SDK_MODEL_CALL_OPERATIONS: readonly string[] = [
  'ai.generateText.doGenerate',
  'ai.streamText.doStream',
  'ai.generateObject.doGenerate',
  'ai.streamObject.doStream',
];
/** ai@5 and later; ai@4 named them `promptTokens` and `completionTokens`. */
export const AI_SDK_USAGE_INPUT_TOKENS = 'ai.usage.inputTokens';
export const AI_SDK_USAGE_OUTPUT_TOKENS = 'ai.usage.outputTokens';
export const AI_SDK_USAGE_PROMPT_TOKENS = 'ai.usage.promptTokens';
export const AI_SDK_USAGE_COMPLETION_TOKENS = 'ai.usage.completionTokens';
export const AI_SDK_RESPONSE_FINISH_REASON = 'ai.response.finishReason';
/** Dropped with `recordOutputs: false`. */
export const AI_SDK_RESPONSE_TEXT = 'ai.response.text';
export const OPENINFERENCE_SPAN_KIND_LLM = 'LLM';
export const OPENINFERENCE_TOKEN_COUNT_PROMPT = 'llm.token_count.prompt';
export const OPENINFERENCE_TOKEN_COUNT_COMPLETION = 'llm.token_count.completion';
export const OPENINFERENCE_FINISH_REASON = 'llm.finish_reason';
/** Flattened: `llm.output_messages.0.message.role`, `.message.content`, or `.message.contents.0.message_content.text`. */
export const OPENINFERENCE_OUTPUT_MESSAGES_PREFIX = 'llm.output_messages.';
/** OpenLLMetry's own LLM spans (before it moved to the GenAI names): `chat` or `completion`. */
export const TRACELOOP_LLM_REQUEST_TYPE = 'llm.request.type';
export const TRACELOOP_LLM_REQUEST_TYPES: readonly string[] = ['chat', 'completion'];
/** Flattened: `gen_ai.completion.0.role`, `.content`, `.finish_reason`. */
export const TRACELOOP_COMPLETIONS_PREFIX = 'gen_ai.completion.';

// --- loopguard's own tool spans (names mirror ../semconv.ts) ---
export const LOOPGUARD_ARGS_HASH = 'loopguard.args.hash';
export const LOOPGUARD_RESULT_HASH = 'loopguard.result.hash';

/**
 * Session-like ids, in the order they are preferred as a run key. Every key
 * here is one a library really sets (see docs/frameworks.md for sources):
 * - `gen_ai.conversation.id`: GenAI conventions; Traceloop `withConversation`.
 * - `session.id`: OpenInference (its LangChain.js instrumentation copies
 *   `session_id` / `thread_id` / `conversation_id` from run metadata into it).
 * - Traceloop association properties: `conversation_id` and `session_id` are
 *   its standard `AssociationProperty` values; the others are common free-form keys.
 * - AI SDK telemetry metadata: `sessionId` is the key Langfuse, OpenInference
 *   and Traceloop read; the others are common variants.
 */
export const RUN_KEY_ATTRIBUTES: readonly string[] = [
  GENAI_CONVERSATION_ID,
  OPENINFERENCE_SESSION_ID,
  `${TRACELOOP_ASSOCIATION_PROPERTIES_PREFIX}conversation_id`,
  `${TRACELOOP_ASSOCIATION_PROPERTIES_PREFIX}session_id`,
  `${TRACELOOP_ASSOCIATION_PROPERTIES_PREFIX}thread_id`,
  `${TRACELOOP_ASSOCIATION_PROPERTIES_PREFIX}conversationId`,
  `${TRACELOOP_ASSOCIATION_PROPERTIES_PREFIX}sessionId`,
  `${TRACELOOP_ASSOCIATION_PROPERTIES_PREFIX}threadId`,
  `${AI_SDK_TELEMETRY_METADATA_PREFIX}conversationId`,
  `${AI_SDK_TELEMETRY_METADATA_PREFIX}sessionId`,
  `${AI_SDK_TELEMETRY_METADATA_PREFIX}threadId`,
  `${AI_SDK_TELEMETRY_METADATA_PREFIX}conversation_id`,
  `${AI_SDK_TELEMETRY_METADATA_PREFIX}session_id`,
  `${AI_SDK_TELEMETRY_METADATA_PREFIX}thread_id`,
];
