import type { Attributes } from '@opentelemetry/api';
import { publicEvidence } from './breaker.js';
import type { HistoryEntry } from './history.js';
import type { Decision } from './policy.js';
import * as sc from './semconv.js';
import type { SpanShape } from './span-shape.js';
import type { ToolNames } from './tool-names.js';
import type { Level } from './types.js';

/** Why a call was not executed: set by the wrapper before the span is evaluated. */
export const ACTION_BLOCK = 'block';
export const ACTION_BREAK = 'break';
const ACTION_FOR_LEVEL = { warning: 'nudge', critical: 'block', break: 'break' } as const;

/** One call for many attributes where the span has it (SDK spans do; SpanShape only promises setAttribute). */
export function setAll(span: SpanShape, attributes: Attributes): void {
  const bulk = (span as { setAttributes?: (a: Attributes) => unknown }).setAttributes;
  if (bulk) {
    bulk.call(span, attributes);
    return;
  }
  for (const key in attributes) span.setAttribute(key, attributes[key]!);
}

/** A recorded call's `loopguard.*` attributes, and the `loopguard.loop_detected` event when its decision reaches someone. */
export function annotateCall(span: SpanShape, entry: HistoryEntry, decision: Decision, tools: ToolNames): void {
  if (decision.step === 0) return;
  // Set one by one: an attributes object for setAll, built on every call, cost more than the calls it saves.
  span.setAttribute(sc.ATTR_LOOPGUARD_STEP, decision.step);
  span.setAttribute(sc.ATTR_LOOPGUARD_RESULT_HASH, entry.resultHash);
  span.setAttribute(sc.ATTR_LOOPGUARD_CALL_FINGERPRINT, `${entry.tool}:${entry.argsHash}`);
  span.setAttribute(sc.ATTR_LOOPGUARD_OUTCOME, entry.outcome);
  if (entry.shapeHash !== undefined) span.setAttribute(sc.ATTR_LOOPGUARD_ARGS_SHAPE_HASH, entry.shapeHash);
  if (entry.resultSketch !== undefined) span.setAttribute(sc.ATTR_LOOPGUARD_RESULT_SKETCH, entry.resultSketch);
  if (entry.pageState !== undefined) span.setAttribute(sc.ATTR_LOOPGUARD_RESULT_PAGE, entry.pageState);
  if (entry.argsWords !== undefined) span.setAttribute(sc.ATTR_LOOPGUARD_ARGS_WORDS, entry.argsWords);
  if (entry.failure !== undefined) span.setAttribute(sc.ATTR_LOOPGUARD_FAILURE, entry.failure);
  if (decision.level !== undefined) span.setAttribute(sc.ATTR_LOOPGUARD_LEVEL, decision.level);
  if (decision.level === undefined || !decision.notify) return;
  const top = decision.evidence[0]!;
  const evidence = publicEvidence(top, tools.name(top.toolId));
  span.addEvent(sc.EVENT_LOOPGUARD_LOOP_DETECTED, {
    [sc.ATTR_LOOPGUARD_DETECTOR]: evidence.detector,
    [sc.ATTR_LOOPGUARD_LEVEL]: decision.level,
    [sc.ATTR_LOOPGUARD_COUNT]: evidence.count,
    [sc.ATTR_LOOPGUARD_PERIOD]: evidence.period,
    [sc.ATTR_LOOPGUARD_FINGERPRINT]: evidence.fingerprint,
    [sc.ATTR_LOOPGUARD_ACTION]: ACTION_FOR_LEVEL[decision.level],
  });
}

/** The `loopguard.loop_detected` event of a verdict on no single call (a model response, the completion gate). */
export function addVerdictEvent(span: SpanShape, detector: string, level: Level, count: number): void {
  span.addEvent(sc.EVENT_LOOPGUARD_LOOP_DETECTED, {
    [sc.ATTR_LOOPGUARD_DETECTOR]: detector,
    [sc.ATTR_LOOPGUARD_LEVEL]: level,
    [sc.ATTR_LOOPGUARD_COUNT]: count,
    [sc.ATTR_LOOPGUARD_PERIOD]: 1,
    [sc.ATTR_LOOPGUARD_ACTION]: ACTION_FOR_LEVEL[level],
  });
}
