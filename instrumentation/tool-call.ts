import { SpanKind, SpanStatusCode, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import type { CallEnd, CallFacts, ResultClassifier } from '../src/call-entry.js';
import { fingerprintArgs } from '../src/fingerprint/index.js';
import type { GuardHost } from '../src/guard-host.js';
import type { Decision } from '../src/policy.js';
import * as sc from '../src/semconv.js';
import { inputSeen, NAME_ONLY_ARGS, unrecordedResult } from '../src/span-call.js';
import type { SpanShape } from '../src/span-shape.js';
import { isOutcome } from '../src/types.js';
import { captureAttribute, type ResolvedCapture } from './capture.js';

export interface ToolCallInfo {
  /** The framework's tool-call id (`gen_ai.tool.call.id`). */
  callId?: string;
  /** Extra attributes for the tool span. */
  attributes?: Attributes;
  /** Span name. default `execute_tool {tool}` (an MCP client uses `tools/call {tool}`) */
  spanName?: string;
  /** Span kind. default INTERNAL (an MCP client call is CLIENT) */
  kind?: SpanKind;
  /** When the call started and ended (epoch ms), for calls replayed from a record. default: the clock */
  startTime?: number;
  endTime?: number;
  /**
   * The caller was not shown the arguments (a framework hiding them from its telemetry; `args` is ignored): the call is
   * known by its tool name alone, as a tool span that records no arguments is.
   */
  argsUnseen?: boolean;
  /**
   * The caller is not shown the result (`execute` resolves to a stand-in): it counts as an answer of its own, never
   * empty and never a repeat, as on a tool span that records no result.
   */
  resultUnseen?: boolean;
}

/** One guarded call in progress: what the history entry is built from, and the span. */
export interface Call extends CallFacts {
  span: Span & SpanShape;
  /** undefined when the call is outside any run (it is then only annotated when its span ends). */
  runKey: string | undefined;
  /** The guard made the span (it was not adopted from another instrumentation's): the guard ends it. */
  own: boolean;
  /** The processor recorded the call on the guard's own span: it ends the span too (see `end`). */
  recorded: boolean;
  /** The caller is not shown the result (`ToolCallInfo.resultUnseen`). */
  resultUnseen: boolean;
}

/** What the guard lends its tool-call spans. */
export interface ToolCallDeps {
  tracer: Tracer;
  host: GuardHost;
  capture: ResolvedCapture | undefined;
  /** The guard's options, read as each call ends (`classifyResult`). */
  options: { readonly classifyResult?: ResultClassifier };
}

/**
 * One guarded call's span: started (or adopted from another
 * instrumentation) with the call's fingerprint, its result or error
 * recorded in its run through the processor's fast path, and ended.
 */
export class ToolCalls {
  constructor(private readonly deps: ToolCallDeps) {}

  /** Starts (or adopts) the call's span and resolves its run. */
  begin(tool: string, args: unknown, info: ToolCallInfo, reused: (Span & SpanShape) | undefined): Call {
    const fingerprint = this.deps.host.fingerprintOptions(tool);
    const argsSeen = info.argsUnseen !== true;
    const resultUnseen = info.resultUnseen === true;
    const fp = argsSeen ? fingerprintArgs(args, fingerprint) : { argsHash: NAME_ONLY_ARGS, normArgsHash: NAME_ONLY_ARGS, argsSketch: undefined, argsText: undefined };
    const attributes: Attributes = reused
      ? {}
      : { [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_EXECUTE_TOOL, [sc.ATTR_GEN_AI_TOOL_NAME]: tool, [sc.ATTR_GEN_AI_TOOL_TYPE]: 'function' };
    attributes[sc.ATTR_LOOPGUARD_ARGS_HASH] = fp.argsHash;
    if (fp.normArgsHash !== fp.argsHash) attributes[sc.ATTR_LOOPGUARD_NORM_ARGS_HASH] = fp.normArgsHash;
    if (fp.argsSketch !== undefined) attributes[sc.ATTR_LOOPGUARD_ARGS_SKETCH] = fp.argsSketch;
    if (info.callId !== undefined) attributes[sc.ATTR_GEN_AI_TOOL_CALL_ID] = info.callId;
    if (this.deps.capture && argsSeen) attributes[sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = captureAttribute(args, this.deps.capture);
    if (!argsSeen || resultUnseen) attributes[sc.ATTR_LOOPGUARD_INPUT] = inputSeen(argsSeen, !resultUnseen);
    if (info.attributes) Object.assign(attributes, info.attributes);
    let span: Span & SpanShape;
    if (reused) {
      span = reused;
      span.setAttributes(attributes);
    } else {
      const name = info.spanName ?? `${sc.GEN_AI_OPERATION_EXECUTE_TOOL} ${tool}`;
      // The SDK's Span satisfies SpanShape; a no-op span (no SDK registered) has no attributes and no run.
      span = this.deps.tracer.startSpan(name, { kind: info.kind ?? SpanKind.INTERNAL, attributes, startTime: info.startTime }) as Span & SpanShape;
    }
    return {
      span,
      tool,
      hasArgs: argsSeen,
      args: argsSeen ? args : undefined,
      argsHash: fp.argsHash,
      normArgsHash: fp.normArgsHash,
      argsSketch: fp.argsSketch,
      argsText: fp.argsText,
      // Signed when the call ends, if it or one in the window found nothing.
      argsWords: undefined,
      fingerprint,
      shapeHash: undefined,
      blocked: false,
      runKey: span.attributes ? this.deps.host.ownRunKey(span, info.attributes) : undefined,
      startMs: info.startTime ?? this.deps.host.now(),
      endMs: info.endTime,
      own: reused === undefined,
      recorded: false,
      resultUnseen,
    };
  }

  recordResult(call: Call, result: unknown): Decision {
    if (this.deps.capture && !call.resultUnseen) call.span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, captureAttribute(result, this.deps.capture));
    if (call.runKey === undefined) return this.deps.host.evaluate(call.span);
    const declared = call.span.attributes?.[sc.ATTR_LOOPGUARD_OUTCOME];
    const outcome = isOutcome(declared) ? declared : undefined;
    const end: CallEnd = call.resultUnseen
      ? { kind: 'hashed', resultHash: unrecordedResult(call.span.spanContext().spanId), outcome: outcome ?? 'ok' }
      : { kind: 'returned', result, outcome };
    return this.record(call, call.runKey, end, this.deps.options.classifyResult);
  }

  /** Records the call in its run (the processor's fast path). */
  record(call: Call, runKey: string, end: CallEnd, classify?: ResultClassifier): Decision {
    const decision = this.deps.host.recordCall(call.span, runKey, call, end, classify, call.own);
    call.recorded = call.own;
    return decision;
  }

  /** Ends the call's span, unless it belongs to another instrumentation; one the processor recorded, through it. */
  end(call: Call): void {
    if (!call.own) return;
    if (call.recorded) this.deps.host.endRecorded(call.span, call.endMs);
    else call.span.end(call.endMs);
  }

  recordError(call: Call, err: unknown): Decision {
    const type = err instanceof Error ? err.name || err.constructor.name : typeof err;
    const message = err instanceof Error ? err.message : String(err);
    const span = call.span;
    span.setStatus({ code: SpanStatusCode.ERROR, message });
    span.setAttribute(sc.ATTR_ERROR_TYPE, type);
    if (err instanceof Error) span.recordException(err);
    if (call.runKey === undefined) return this.deps.host.evaluate(span);
    const retryable = span.attributes?.[sc.ATTR_LOOPGUARD_ERROR_RETRYABLE];
    return this.record(call, call.runKey, {
      kind: 'failed',
      errorType: type,
      message,
      retryable: typeof retryable === 'boolean' ? retryable : undefined,
    });
  }
}
