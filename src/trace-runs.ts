import type { Attributes } from '@opentelemetry/api';
import { readRunKey } from './dialects/index.js';
import type { LoopEngine } from './engine.js';
import * as sc from './semconv.js';
import type { SpanShape } from './span-shape.js';

interface TraceState {
  runKey: string | undefined;
  root: SpanShape | undefined;
  /** Parents of the LLM spans read as model responses (most recent last, bounded): a parent that is an LLM span too wraps the same response. */
  modelParents?: string[];
}

/** LLM-span parents remembered per trace: a wrapper ends right after the span it wraps, so only the latest few matter. */
const MODEL_PARENTS_KEPT = 16;

function parentOf(span: SpanShape): string | undefined {
  return span.parentSpanContext?.spanId ?? span.parentSpanId;
}

/**
 * What the processor remembers of each open trace (as many as the engine
 * keeps runs): the run its spans belong to, its root span, and the parents
 * of the LLM spans read in it. Resolves the run key of any span from it.
 */
export class TraceRuns {
  private readonly traces = new Map<string, TraceState>();

  constructor(private readonly engine: LoopEngine) {}

  /** A span started: opens its trace, takes the run key it names, and the run's output-token budget from a root span. */
  start(span: SpanShape): void {
    const traceId = span.spanContext().traceId;
    // The guard's own tool spans carry no run hints but the ones it resolves itself (ownRunKey): skip the scan.
    const explicit = span.attributes[sc.ATTR_LOOPGUARD_ARGS_HASH] === undefined ? this.explicitRunKey(span.attributes) : undefined;
    let state = this.traces.get(traceId);
    if (!state) {
      if (this.traces.size >= this.engine.options.maxRuns) this.traces.delete(this.traces.keys().next().value as string);
      state = { runKey: undefined, root: undefined };
      this.traces.set(traceId, state);
    }
    if (parentOf(span) === undefined) {
      state.root = span;
      const budget = span.attributes[sc.ATTR_LOOPGUARD_RUN_MAX_OUTPUT_TOKENS];
      if (typeof budget === 'number' && Number.isInteger(budget) && budget >= 0) this.engine.setOutputBudget(explicit ?? state.runKey ?? traceId, budget);
    }
    if (explicit !== undefined && state.runKey === undefined) {
      state.runKey = explicit;
      // Spans that arrived first (a collector sees the root last) were keyed by the trace.
      this.engine.rekey(traceId, explicit);
    }
  }

  /** The run a span belongs to: an explicit conversation/session id, else its trace. */
  runKeyOf(span: SpanShape): string | undefined {
    return this.runKeyWith(span, this.explicitRunKey(span.attributes));
  }

  /** {@link runKeyOf} for a tool span whose reader already read the run-key attributes (`read`). */
  toolSpanRunKey(span: SpanShape, read: string | undefined): string | undefined {
    // Only a custom attribute, which comes first, is left to read.
    return this.runKeyWith(span, this.engine.options.runKeyAttribute === undefined ? read : this.explicitRunKey(span.attributes));
  }

  /**
   * The run of a span the guard made: the key its trace was opened with, or
   * the trace itself. Skips reading the span's attributes for run hints,
   * which only `extra` (the caller's own attributes) can hold.
   */
  ownRunKey(span: SpanShape, extra: Attributes | undefined): string | undefined {
    const explicit = extra === undefined ? undefined : this.explicitRunKey(extra);
    if (explicit !== undefined) return explicit;
    const traceId = span.spanContext().traceId;
    const key = this.traces.get(traceId)?.runKey;
    if (key !== undefined) return key;
    return parentOf(span) === undefined ? undefined : traceId;
  }

  /** The run key of the trace whose root span this is, forgetting the trace; undefined for any other span. */
  closeRoot(span: SpanShape): string | undefined {
    const traceId = span.spanContext().traceId;
    const state = this.traces.get(traceId);
    if (state?.root !== span) return undefined;
    this.traces.delete(traceId);
    return state.runKey ?? traceId;
  }

  /**
   * One response, two LLM spans: a framework's span around the provider
   * client's (OpenInference's LangChain and OpenAI instrumentations both on).
   * The inner one ends first and is counted; the wrapper is skipped.
   */
  wrapsCountedTurn(span: SpanShape): boolean {
    const state = this.traces.get(span.spanContext().traceId);
    if (!state) return false;
    const parents = (state.modelParents ??= []);
    if (parents.includes(span.spanContext().spanId)) return true;
    const parent = parentOf(span);
    if (parent !== undefined) {
      parents.push(parent);
      if (parents.length > MODEL_PARENTS_KEPT) parents.shift();
    }
    return false;
  }

  clear(): void {
    this.traces.clear();
  }

  /** {@link runKeyOf} with the span's explicit run key already read. */
  private runKeyWith(span: SpanShape, explicit: string | undefined): string | undefined {
    const traceId = span.spanContext().traceId;
    const state = this.traces.get(traceId);
    const key = explicit ?? state?.runKey;
    if (key !== undefined) return key;
    // A tool span that is its own root has no run around it: nothing to compare it with.
    if (parentOf(span) === undefined) return undefined;
    return traceId;
  }

  private explicitRunKey(attributes: Attributes): string | undefined {
    const custom = this.engine.options.runKeyAttribute;
    if (custom !== undefined) {
      const value = attributes[custom];
      if (typeof value === 'string' && value !== '') return value;
    }
    return readRunKey(attributes);
  }
}
