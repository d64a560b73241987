import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import type { RunVerdict } from '../src/engine.js';
import { exitReason, isTurnLimitError, type ExitReason } from '../src/exit-reason.js';
import type { GuardHost } from '../src/guard-host.js';
import * as sc from '../src/semconv.js';
import type { SpanShape } from '../src/span-shape.js';

/** What `onComplete` receives when a run ends. */
export interface CompleteEvent {
  runKey: string;
  traceId: string;
  /** Why the run ended (`loopguard.run.exit_reason`). */
  exitReason: ExitReason;
  /** Subjects of failed checks no later success cleared (`service://…`, `test://…`, `file://…`); empty when none. */
  unresolved: string[];
  /** The run's final verdict; undefined when it made no tool call. */
  verdict: RunVerdict | undefined;
}

export interface RunOptions {
  /** Sets `gen_ai.conversation.id`: calls of several traces with the same id are one run. */
  conversationId?: string;
  /** Sets `gen_ai.agent.name`, the name of the agent doing the run (the run's own name is `loopguard.run.name`). */
  agentName?: string;
  /** This run's output-token budget, instead of the `maxOutputTokens` option (sets `loopguard.run.max_output_tokens`). */
  maxOutputTokens?: number;
  attributes?: Attributes;
}

/** A run in progress or finished: what `guard.run()` hands its function. */
export interface RunHandle {
  /** The key the run's calls are compared under: its conversation id, else its trace id. */
  readonly runKey: string;
  /** The run's verdict so far; once the run is over, its final verdict. undefined before its first tool call. */
  verdict(): RunVerdict | undefined;
}

/** A run opened with `startRun`: code run inside `context` belongs to it, `end` closes it. */
export interface OpenRun extends RunHandle {
  readonly context: Context;
  end(error?: unknown): void;
}

/** What the guard lends the runs it opens. */
export interface AgentRunDeps {
  tracer: Tracer;
  host: GuardHost;
  /** The guard's options, read as each run ends (`onComplete`). */
  options: { readonly onComplete?: (event: CompleteEvent) => void | Promise<void> };
}

/**
 * The agent runs the guard opens: an `invoke_agent {name}` root span whose
 * key the run's calls are compared under, ended once (with the error, if
 * the run failed), and `onComplete` told why the run ended.
 */
export class AgentRuns {
  constructor(private readonly deps: AgentRunDeps) {}

  /** Opens a run (see `Guard.startRun`). */
  start(name: string, options: RunOptions = {}): OpenRun {
    // A run id is not an agent name: the name given here goes to loopguard.run.name.
    const attributes: Attributes = {
      [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_INVOKE_AGENT,
      [sc.ATTR_LOOPGUARD_RUN_NAME]: name,
      ...options.attributes,
    };
    if (options.agentName !== undefined) attributes[sc.ATTR_GEN_AI_AGENT_NAME] = options.agentName;
    if (options.conversationId !== undefined) attributes[sc.ATTR_GEN_AI_CONVERSATION_ID] = options.conversationId;
    if (options.maxOutputTokens !== undefined) attributes[sc.ATTR_LOOPGUARD_RUN_MAX_OUTPUT_TOKENS] = options.maxOutputTokens;
    const span = this.deps.tracer.startSpan(`${sc.GEN_AI_OPERATION_INVOKE_AGENT} ${name}`, { root: true, kind: SpanKind.INTERNAL, attributes });
    const shaped = span as Span & Partial<SpanShape>;
    const runKey = (shaped.attributes ? this.deps.host.runKeyOf(shaped as SpanShape) : undefined) ?? span.spanContext().traceId;
    const host = this.deps.host;
    const complete = (error: unknown) => this.complete(span as Span & Partial<SpanShape>, runKey, error);
    let ended = false;
    return {
      runKey,
      context: trace.setSpan(context.active(), span),
      verdict: () => host.verdict(runKey),
      end(error?: unknown) {
        if (ended) return;
        ended = true;
        if (error !== undefined) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
          span.setAttribute(sc.ATTR_ERROR_TYPE, error instanceof Error ? error.name : typeof error);
        }
        span.end();
        complete(error);
      },
    };
  }

  /** Tells `onComplete` why the run whose root span just ended ended. */
  private complete(span: Span & Partial<SpanShape>, runKey: string, error: unknown): void {
    const onComplete = this.deps.options.onComplete;
    if (!onComplete) return;
    const errors = this.deps.host.errors;
    const event = errors.run(
      'building the onComplete event failed',
      (): CompleteEvent => {
        const verdict = this.deps.host.verdict(runKey);
        const stamped = span.attributes?.[sc.ATTR_LOOPGUARD_RUN_EXIT_REASON];
        const name = error instanceof Error ? error.name : undefined;
        // A run without tool calls is not summarised on its span: its reason follows from how it ended.
        const reason = typeof stamped === 'string' ? (stamped as ExitReason) : exitReason(null, { failed: error !== undefined, aborted: name === 'AbortError', turnLimit: isTurnLimitError(name) });
        return { runKey, traceId: span.spanContext().traceId, exitReason: reason, unresolved: verdict?.unresolved ?? [], verdict };
      },
      undefined,
    );
    if (event) void errors.runAsync('onComplete threw', async () => onComplete(event), undefined);
  }
}
