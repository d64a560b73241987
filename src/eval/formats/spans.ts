import type { Attributes } from '@opentelemetry/api';
import { readRunKey, readToolSpan } from '../../dialects/index.js';
import { readPayload, readString, type Recorded } from '../../dialects/payload.js';
import { classifyResult } from '../../fingerprint/index.js';
import * as sc from '../../semconv.js';
import { OUTCOMES, type Outcome } from '../../types.js';
import type { TrajectoryStep } from '../corpus.js';
import { step, unlabelled, type ReadOptions, type Run } from './types.js';

/** A finished span from a trace file, whatever its encoding (OTLP/JSON, Jaeger JSON). */
export interface TraceSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** `SpanKind` of the API (SERVER = 1). */
  kind: number;
  attributes: Attributes;
  /** Milliseconds since the epoch. */
  startMs: number;
  endMs: number;
  failed: boolean;
  statusMessage: string | undefined;
}

function isOutcome(value: unknown): value is Outcome {
  return typeof value === 'string' && (OUTCOMES as readonly string[]).includes(value);
}

/**
 * A payload the span recorded, or, when only loopguard's hash of it was
 * exported (content capture off), the hash as a stand-in: equal calls keep
 * equal stand-ins, so repeats still read as repeats on replay.
 */
function payloadOrHash(attributes: Attributes, payloadKey: string, hashKey: string): Recorded {
  const payload = readPayload(attributes, payloadKey);
  if (payload.present) return payload;
  const hash = readString(attributes, hashKey);
  return hash === undefined ? { present: false } : { present: true, value: { [hashKey]: hash } };
}

/** One tool span as a trajectory step, read by the same dialect readers the processor uses; undefined for other spans. */
function toolStep(span: TraceSpan): TrajectoryStep | undefined {
  const view = readToolSpan(span);
  if (view === undefined) return undefined;
  let args: Recorded = { present: view.hasArgs, value: view.args };
  let result: Recorded = { present: view.hasResult, value: view.result };
  if (view.dialect === 'loopguard') {
    // loopguard's own spans carry hashes; the raw payloads only when content capture was on.
    args = payloadOrHash(span.attributes, sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, sc.ATTR_LOOPGUARD_ARGS_HASH);
    if (!result.present || result.value === undefined) {
      result = payloadOrHash(span.attributes, sc.ATTR_GEN_AI_TOOL_CALL_RESULT, sc.ATTR_LOOPGUARD_RESULT_HASH);
    }
  }
  const durationMs = Math.max(0, span.endMs - span.startMs);
  if (span.failed) {
    // Both parts, as the processor's error hash reads both: `TypeError: x is undefined`.
    const error = [readString(span.attributes, sc.ATTR_ERROR_TYPE), span.statusMessage].filter((p) => p !== undefined && p !== '').join(': ') || 'error';
    return step(view.tool, args.present ? args.value : {}, { status: 'error', error, durationMs });
  }
  const declared = span.attributes[sc.ATTR_LOOPGUARD_OUTCOME];
  // Unrecorded results replay as nothing; the declared outcome, if any, still says what happened.
  const status = isOutcome(declared) ? declared : result.present ? classifyResult(result.value) : 'ok';
  return step(view.tool, args.present ? args.value : {}, {
    result: result.present ? result.value : undefined,
    hasResult: result.present,
    status,
    durationMs,
  });
}

/**
 * Groups the tool spans of a trace file into runs by the processor's rule:
 * a run is named by the first session / conversation id any span of its
 * trace carries (the configured `runKeyAttribute` first), else it is the
 * trace; a tool span alone in its trace, with no such id, belongs to no run.
 * Steps are in start order, `t` counted from the run's first span.
 */
export function spansToRuns(spans: TraceSpan[], options: ReadOptions): Run[] {
  const explicitKey = (attributes: Attributes): string | undefined => {
    const custom = options.runKeyAttribute === undefined ? undefined : attributes[options.runKeyAttribute];
    return typeof custom === 'string' && custom !== '' ? custom : readRunKey(attributes);
  };
  const byTrace = new Map<string, TraceSpan[]>();
  for (const s of spans) {
    const list = byTrace.get(s.traceId);
    if (list) list.push(s);
    else byTrace.set(s.traceId, [s]);
  }
  const runs = new Map<string, { origin: number; calls: { span: TraceSpan; step: TrajectoryStep }[] }>();
  for (const [traceId, traceSpans] of byTrace) {
    traceSpans.sort((a, b) => a.startMs - b.startMs);
    const traceKey = traceSpans.map((s) => explicitKey(s.attributes)).find((k) => k !== undefined);
    for (const span of traceSpans) {
      const call = toolStep(span);
      if (call === undefined) continue;
      const key = explicitKey(span.attributes) ?? traceKey ?? (span.parentSpanId === undefined ? undefined : traceId);
      if (key === undefined) continue;
      let run = runs.get(key);
      if (!run) runs.set(key, (run = { origin: traceSpans[0]!.startMs, calls: [] }));
      run.origin = Math.min(run.origin, traceSpans[0]!.startMs);
      run.calls.push({ span, step: call });
    }
  }
  return [...runs].map(([key, run]) => {
    run.calls.sort((a, b) => a.span.startMs - b.span.startMs);
    const steps = run.calls.map(({ span, step: s }) => ({ ...s, t: Math.round((span.startMs - run.origin) * 1000) / 1000 }));
    return unlabelled(key, `${steps.length} tool calls`, steps);
  });
}
