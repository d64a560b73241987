import { SpanStatusCode, type Attributes } from '@opentelemetry/api';
import { readToolSpan } from '../../dialects/index.js';
import { readPayload, readString, type Recorded } from '../../dialects/payload.js';
import { classifyResult } from '../../fingerprint/index.js';
import { LoopGuardSpanProcessor } from '../../processor.js';
import * as sc from '../../semconv.js';
import type { SpanShape } from '../../span-shape.js';
import { OUTCOMES, type Outcome } from '../../types.js';
import type { TrajectoryStep } from '../corpus.js';
import { step, unlabelled, type ReadOptions, type Run } from './types.js';

const toMs = (time: readonly [number, number]): number => time[0] * 1e3 + time[1] / 1e6;

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
function toolStep(span: SpanShape): TrajectoryStep | undefined {
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
  const durationMs = Math.max(0, toMs(span.endTime) - toMs(span.startTime));
  if (span.status.code === SpanStatusCode.ERROR) {
    // Both parts, as the processor's error hash reads both: `TypeError: x is undefined`.
    const error = [readString(span.attributes, sc.ATTR_ERROR_TYPE), span.status.message].filter((p) => p !== undefined && p !== '').join(': ') || 'error';
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
 * Groups the tool spans of a trace file into runs by the processor's own
 * rule (`runKeyOf`, as the collector applies it): a run is named by the
 * configured `runKeyAttribute` or the first session / conversation id a span
 * of its trace carries, else it is the trace; a tool span alone in its trace,
 * with no such id, belongs to no run. Steps are in start order, `t` counted
 * from the run's first span.
 */
export function spansToRuns(spans: SpanShape[], options: ReadOptions): Run[] {
  // A processor only for its run-key rule: it sees each trace's spans start (that is where it learns a trace's key), never their end.
  const keys = new LoopGuardSpanProcessor({ runKeyAttribute: options.runKeyAttribute });
  const byTrace = new Map<string, SpanShape[]>();
  for (const s of spans) {
    const traceId = s.spanContext().traceId;
    const list = byTrace.get(traceId);
    if (list) list.push(s);
    else byTrace.set(traceId, [s]);
  }
  const byStart = (a: SpanShape, b: SpanShape) => toMs(a.startTime) - toMs(b.startTime);
  const runs = new Map<string, { origin: number; calls: { start: number; step: TrajectoryStep }[] }>();
  for (const traceSpans of byTrace.values()) {
    traceSpans.sort(byStart);
    for (const span of traceSpans) keys.onStart(span);
    const origin = toMs(traceSpans[0]!.startTime);
    for (const span of traceSpans) {
      const call = toolStep(span);
      const key = call === undefined ? undefined : keys.runKeyOf(span);
      if (call === undefined || key === undefined) continue;
      let run = runs.get(key);
      if (!run) runs.set(key, (run = { origin, calls: [] }));
      run.origin = Math.min(run.origin, origin);
      run.calls.push({ start: toMs(span.startTime), step: call });
    }
  }
  return [...runs].map(([key, run]) => {
    run.calls.sort((a, b) => a.start - b.start);
    const steps = run.calls.map(({ start, step: s }) => ({ ...s, t: Math.round((start - run.origin) * 1000) / 1000 }));
    return unlabelled(key, `${steps.length} tool calls`, steps);
  });
}
