import { ROOT_CONTEXT } from '@opentelemetry/api';
import type { Context } from '@opentelemetry/api';
import type { SpanShape } from '../span-shape.js';
import { rejectSpan } from './otlp-model.js';
import type { OtlpResourceSpans, OtlpScopeSpans, OtlpSpan, OtlpTraceRequest, SpanRejections } from './otlp-model.js';
import type { KeyValueCap } from './key-caps.js';
import type { SpanEdits } from './otlp-encode.js';
import { OtlpSpanAdapter } from './span-adapter.js';
import { TimeSlicer } from './time-slicer.js';

/**
 * What the collector needs from the detection engine: the span-processor hooks
 * it drives for every received span, and the verdict lookup behind
 * `GET /v1/runs/{key}`. `LoopGuardSpanProcessor` satisfies it.
 */
export interface SpanAnnotator {
  onStart(span: SpanShape, parentContext: Context): void;
  onEnding?(span: SpanShape): void;
  onEnd(span: SpanShape): void;
  /** The run's current verdict as JSON-serialisable data, or undefined for an unknown run. */
  verdict(runKey: string): unknown;
  shutdown?(): Promise<void>;
  /**
   * The engine's eviction count (tracked-run cap, idle TTL), shown as
   * `loopguard_collector_runs_evicted_total`, and its idle-run sweep, which the
   * collector runs on a timer so idle runs are released without new traffic.
   */
  readonly engine?: { readonly evictions: number; sweep?(): void };
}

export interface AnnotateOutcome extends SpanRejections {
  /** The request minus rejected spans (and minus scope/resource groups left empty). */
  accepted: OtlpTraceRequest;
  acceptedSpans: number;
  detectionErrors: number;
  /** What detection did to each accepted span, for forwarding received bytes plus appended fields. */
  edits: SpanEdits;
}

function isValidId(id: Uint8Array | undefined, length: number): boolean {
  if (id === undefined || id.length !== length) return false;
  for (let i = 0; i < length; i++) if (id[i] !== 0) return true;
  return false;
}

/** Why a span cannot be accepted (OTLP: ids of the wrong length or all zero are invalid), or undefined. */
export function spanIdProblem(span: OtlpSpan): string | undefined {
  if (!isValidId(span.traceId, 16)) return `traceId must be 16 bytes, not all zero (got ${span.traceId?.length ?? 0} bytes)`;
  if (!isValidId(span.spanId, 8)) return `spanId must be 8 bytes, not all zero (got ${span.spanId?.length ?? 0} bytes)`;
  const parent = span.parentSpanId;
  if (parent !== undefined && parent.length !== 0 && parent.length !== 8) {
    return `parentSpanId must be empty or 8 bytes (got ${parent.length} bytes)`;
  }
  return undefined;
}

/**
 * Runs every valid span of a request through the annotator in arrival order
 * (resource spans in request order, spans in their order) and returns what is
 * to be forwarded, yielding to the event loop every few milliseconds. Detection
 * failing on a span never loses the span: the error is counted and reported,
 * and the span is forwarded as far as it was annotated. `rejected` carries the
 * spans already refused while decoding.
 */
export async function annotateRequest(
  request: OtlpTraceRequest,
  annotator: SpanAnnotator,
  onDetectionError: (err: unknown) => void,
  rejected: SpanRejections = { rejectedSpans: 0, rejectionMessages: [] },
  keyCap?: KeyValueCap,
): Promise<AnnotateOutcome> {
  const outcome: AnnotateOutcome = { accepted: {}, acceptedSpans: 0, detectionErrors: 0, edits: new WeakMap(), rejectedSpans: rejected.rejectedSpans, rejectionMessages: [...rejected.rejectionMessages] };
  const acceptedResources: OtlpResourceSpans[] = [];
  const slicer = new TimeSlicer();
  const resourceSpans = request.resourceSpans ?? [];
  for (let ri = 0; ri < resourceSpans.length; ri++) {
    const rs = resourceSpans[ri]!;
    const acceptedScopes: OtlpScopeSpans[] = [];
    const scopeSpans = rs.scopeSpans ?? [];
    for (let si = 0; si < scopeSpans.length; si++) {
      const ss = scopeSpans[si]!;
      const kept: OtlpSpan[] = [];
      const spans = ss.spans ?? [];
      for (let pi = 0; pi < spans.length; pi++) {
        const span = spans[pi]!;
        const problem = spanIdProblem(span);
        if (problem) {
          rejectSpan(outcome, `resourceSpans[${ri}].scopeSpans[${si}].spans[${pi}]`, problem);
          continue;
        }
        kept.push(span);
        outcome.acceptedSpans++;
        const shape = new OtlpSpanAdapter(span, rs.resource, ss.scope, keyCap);
        try {
          annotator.onStart(shape, ROOT_CONTEXT);
          annotator.onEnding?.(shape);
          annotator.onEnd(shape);
        } catch (err) {
          outcome.detectionErrors++;
          onDetectionError(err);
        }
        outcome.edits.set(span, shape.edit());
        if (slicer.due()) await slicer.pause();
      }
      if (kept.length > 0) acceptedScopes.push({ ...ss, spans: kept });
    }
    if (acceptedScopes.length > 0) acceptedResources.push({ ...rs, scopeSpans: acceptedScopes });
  }
  if (acceptedResources.length > 0) outcome.accepted.resourceSpans = acceptedResources;
  return outcome;
}
