/**
 * Every span name, attribute, event and metric name loopguard reads or writes.
 *
 * GenAI names are copied from the OpenTelemetry semantic conventions (the
 * `incubating` entry point is not stable API, so it is never imported at run
 * time). loopguard's own names are the public contract of DESIGN §4: they end
 * up in dashboards and alert rules, so they change only with a major version.
 */

// --- GenAI semantic conventions (copied) ---
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const ATTR_GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id';
export const ATTR_GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments';
export const ATTR_GEN_AI_TOOL_CALL_RESULT = 'gen_ai.tool.call.result';
export const ATTR_GEN_AI_TOOL_TYPE = 'gen_ai.tool.type';
export const ATTR_GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';
export const ATTR_GEN_AI_AGENT_NAME = 'gen_ai.agent.name';
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const ATTR_GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const ATTR_GEN_AI_OUTPUT_MESSAGES = 'gen_ai.output.messages';
export const ATTR_ERROR_TYPE = 'error.type';

export const GEN_AI_OPERATION_EXECUTE_TOOL = 'execute_tool';
export const GEN_AI_OPERATION_INVOKE_AGENT = 'invoke_agent';
/** The operation of a span that is one model response (the eval replay writes its model turns as these; ./dialects/model reads every dialect). */
export const GEN_AI_OPERATION_CHAT = 'chat';

// --- loopguard tool-span attributes ---
export const ATTR_LOOPGUARD_ARGS_HASH = 'loopguard.args.hash';
export const ATTR_LOOPGUARD_NORM_ARGS_HASH = 'loopguard.args.norm_hash';
/** On calls that found nothing: the arguments' hash with digits masked (guessed ids share a shape). */
export const ATTR_LOOPGUARD_ARGS_SHAPE_HASH = 'loopguard.args.shape_hash';
export const ATTR_LOOPGUARD_RESULT_HASH = 'loopguard.result.hash';
/** Similarity sketches (docs/fingerprints.md, "Similarity sketches"): 66 hex chars. */
export const ATTR_LOOPGUARD_ARGS_SKETCH = 'loopguard.args.sketch';
export const ATTR_LOOPGUARD_RESULT_SKETCH = 'loopguard.result.sketch';
/** Which page, and where on it, a browsing call's result shows (docs/fingerprints.md, "Page state"): 16 hex chars. */
export const ATTR_LOOPGUARD_RESULT_PAGE = 'loopguard.result.page';
/** Word signature of short arguments (docs/fingerprints.md, "Word signatures"): 24 hex chars. */
export const ATTR_LOOPGUARD_ARGS_WORDS = 'loopguard.args.words';
/** On failed calls: `transient` or `deterministic` (DESIGN §3). */
export const ATTR_LOOPGUARD_FAILURE = 'loopguard.failure';
/** Set by a tool (or its framework) that knows whether its failure is worth retrying; wins over loopguard's reading of the error. */
export const ATTR_LOOPGUARD_ERROR_RETRYABLE = 'loopguard.error.retryable';
export const ATTR_LOOPGUARD_CALL_FINGERPRINT = 'loopguard.call.fingerprint';
/** Set on a tool span whose arguments were cut off by a truncated model response: recorded as part of that response, not as a tool call. */
export const ATTR_LOOPGUARD_CALL_CUT_OFF = 'loopguard.call.cut_off';
export const ATTR_LOOPGUARD_OUTCOME = 'loopguard.outcome';
export const ATTR_LOOPGUARD_STEP = 'loopguard.step';
export const ATTR_LOOPGUARD_LEVEL = 'loopguard.level';
/** Set when the call was not executed because the breaker blocked or refused it. */
export const ATTR_LOOPGUARD_ACTION = 'loopguard.action';
/** Which parts of a foreign tool span were readable, or of a guarded call whose framework hid some: `full`, `args`, `result`, `name_only`. */
export const ATTR_LOOPGUARD_INPUT = 'loopguard.input';
/** On an LLM span: the similarity sketch of the response text, computed where the text was seen (the text itself is not recorded). */
export const ATTR_LOOPGUARD_OUTPUT_SKETCH = 'loopguard.output.sketch';
/** On an LLM span whose response chants (repeats one passage over and over within itself): how many times the passage occurs. */
export const ATTR_LOOPGUARD_OUTPUT_REPETITION = 'loopguard.output.repetition';
/** Opt-in copies of the raw payloads (redacted and truncated). */
export const ATTR_LOOPGUARD_ARGS = 'loopguard.args';
export const ATTR_LOOPGUARD_RESULT = 'loopguard.result';

// --- loopguard event on the tool span ---
export const EVENT_LOOPGUARD_LOOP_DETECTED = 'loopguard.loop_detected';
export const ATTR_LOOPGUARD_DETECTOR = 'loopguard.detector';
export const ATTR_LOOPGUARD_COUNT = 'loopguard.count';
export const ATTR_LOOPGUARD_PERIOD = 'loopguard.period';
export const ATTR_LOOPGUARD_FINGERPRINT = 'loopguard.fingerprint';
export const ATTR_LOOPGUARD_MESSAGE = 'loopguard.message';

// --- run summary on the run's root span ---
export const ATTR_LOOPGUARD_RUN_MAX_LEVEL = 'loopguard.run.max_level';
export const ATTR_LOOPGUARD_RUN_DETECTIONS = 'loopguard.run.detections';
export const ATTR_LOOPGUARD_RUN_STOPPED = 'loopguard.run.stopped';
export const ATTR_LOOPGUARD_RUN_STOP_REASON = 'loopguard.run.stop_reason';
export const ATTR_LOOPGUARD_RUN_TOOL_CALLS = 'loopguard.run.tool_calls';
/** false on a call loopguard refused (blocked or broken): its result hash and outcome are those of the repeat it stands for. */
export const ATTR_LOOPGUARD_EXECUTED = 'loopguard.executed';
/** The name given to `guard.run()`: a run id, not an agent name (that is `gen_ai.agent.name`). */
export const ATTR_LOOPGUARD_RUN_NAME = 'loopguard.run.name';
/** Set on the root span by whoever starts the run: its output-token budget, instead of the `maxOutputTokens` option. */
export const ATTR_LOOPGUARD_RUN_MAX_OUTPUT_TOKENS = 'loopguard.run.max_output_tokens';
/** Why the run ended: one of `EXIT_REASONS` (src/exit-reason.ts, docs/model-turns.md). */
export const ATTR_LOOPGUARD_RUN_EXIT_REASON = 'loopguard.run.exit_reason';

// --- loopguard event on an LLM span: a message for the model below any loop verdict (budget notice, truncation recovery) ---
export const EVENT_LOOPGUARD_NOTICE = 'loopguard.notice';
/** On an LLM span: this answer ends the run (set by whoever knows it: a framework adapter, the eval replay, your own instrumentation). */
export const ATTR_LOOPGUARD_RESPONSE_FINAL = 'loopguard.response.final';
/** On the root span: failed checks no later success on the same subject cleared (the completion gate). */
export const ATTR_LOOPGUARD_RUN_UNRESOLVED_FAILURES = 'loopguard.run.unresolved_failures';
/** Event on the root span naming the unresolved subjects (`loopguard.subjects`). */
export const EVENT_LOOPGUARD_UNRESOLVED_FAILURES = 'loopguard.unresolved_failures';
export const ATTR_LOOPGUARD_SUBJECTS = 'loopguard.subjects';

// --- metrics ---
export const METRIC_LOOPGUARD_DETECTIONS = 'loopguard.detections';
export const METRIC_LOOPGUARD_RUNS_STOPPED = 'loopguard.runs.stopped';
export const METRIC_LOOPGUARD_TOOL_CALLS = 'loopguard.tool_calls';
export const METRIC_LOOPGUARD_RUNS_ACTIVE = 'loopguard.runs.active';
/** Runs whose root span ended, by `reason` (an exit reason). */
export const METRIC_LOOPGUARD_RUNS_ENDED = 'loopguard.runs.ended';
export const METRIC_ATTR_DETECTOR = 'detector';
export const METRIC_ATTR_LEVEL = 'level';
export const METRIC_ATTR_REASON = 'reason';
export const METRIC_ATTR_OUTCOME = 'outcome';
