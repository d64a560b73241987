/**
 * What a stopped run and a normal run look like in Jaeger, checked the way a
 * person finds them: search the service for the tag `loopguard.level=break`,
 * open the trace, read the tool span's logs (Jaeger shows span events as
 * logs) and the run's root span.
 */
import { expect } from 'vitest';
import {
  jaegerEvents,
  jaegerFindTraces,
  jaegerGetTrace,
  jaegerTag,
  waitFor,
  type JaegerSpan,
  type JaegerTrace,
} from '../support/index.js';

/** Waits until Jaeger holds the whole trace: `spans` spans (ingestion is asynchronous and per span). */
export async function waitForWholeTrace(queryUrl: string, traceId: string, spans: number, timeoutMs = 30_000): Promise<JaegerTrace> {
  return waitFor(
    async () => {
      const found = await jaegerGetTrace(queryUrl, traceId);
      if (found && found.spans.length > spans) {
        throw new Error(`trace ${traceId} has ${found.spans.length} spans in Jaeger, more than the ${spans} sent`);
      }
      return found && found.spans.length === spans ? found : undefined;
    },
    { description: `trace ${traceId} with all ${spans} spans in Jaeger`, timeoutMs },
  );
}

export function rootSpan(trace: JaegerTrace): JaegerSpan {
  const roots = trace.spans.filter((span) => span.references.length === 0);
  expect(roots, `root spans of trace ${trace.traceID}`).toHaveLength(1);
  return roots[0]!;
}

export function toolSpans(trace: JaegerTrace): JaegerSpan[] {
  return trace.spans
    .filter((span) => jaegerTag(span, 'gen_ai.operation.name') === 'execute_tool')
    .sort((a, b) => Number(jaegerTag(a, 'loopguard.step') ?? 0) - Number(jaegerTag(b, 'loopguard.step') ?? 0));
}

export interface StoppedRunExpectation {
  service: string;
  traceId: string;
  /** Root span plus tool spans. */
  spans: number;
  toolCalls: number;
  /** The tool whose repeats stopped the run. */
  tool: string;
  /** When the agent knows it (in-process: LoopBreakError.step). */
  breakStep?: number;
  reason?: string;
}

export interface StoppedRunFindings {
  trace: JaegerTrace;
  breakSpan: JaegerSpan;
  breakEvent: Record<string, string | number | boolean>;
  root: JaegerSpan;
}

/**
 * Finds the run by service and tag `loopguard.level=break` (it must be the
 * only such trace of the service), and checks the `loopguard.loop_detected`
 * event on the tool span that reached `break` and the root span's summary.
 */
export async function expectStoppedRunInJaeger(queryUrl: string, expected: StoppedRunExpectation): Promise<StoppedRunFindings> {
  const whole = await waitForWholeTrace(queryUrl, expected.traceId, expected.spans);
  const found = await jaegerFindTraces(queryUrl, { service: expected.service, tags: { 'loopguard.level': 'break' } });
  expect(found.map((trace) => trace.traceID)).toEqual([expected.traceId]);
  expect(whole.processes[whole.spans[0]!.processID]?.serviceName).toBe(expected.service);

  const tools = toolSpans(whole);
  expect(tools).toHaveLength(expected.toolCalls);
  // Steps are the run's tool calls in order, 1..n, each seen once.
  expect(tools.map((span) => jaegerTag(span, 'loopguard.step'))).toEqual(tools.map((_, index) => index + 1));

  const breakSpans = tools.filter((span) => jaegerTag(span, 'loopguard.level') === 'break');
  expect(breakSpans.length).toBeGreaterThan(0);
  const breakSpan = breakSpans[0]!;
  if (expected.breakStep !== undefined) expect(jaegerTag(breakSpan, 'loopguard.step')).toBe(expected.breakStep);
  expect(jaegerTag(breakSpan, 'gen_ai.tool.name')).toBe(expected.tool);
  expect(breakSpan.operationName).toBe(`execute_tool ${expected.tool}`);
  const events = jaegerEvents(breakSpan, 'loopguard.loop_detected');
  expect(events).toHaveLength(1);
  const breakEvent = events[0]!;
  expect(breakEvent).toMatchObject({
    'loopguard.level': 'break',
    'loopguard.action': 'break',
    'loopguard.fingerprint': jaegerTag(breakSpan, 'loopguard.call.fingerprint'),
  });
  if (expected.reason !== undefined) expect(breakEvent['loopguard.detector']).toBe(expected.reason);
  expect(Number(breakEvent['loopguard.count'])).toBeGreaterThanOrEqual(2);
  // Every tool span before the break is below it: the break is where the run was stopped.
  for (const span of tools.slice(0, tools.indexOf(breakSpan))) expect(jaegerTag(span, 'loopguard.level')).not.toBe('break');

  const root = rootSpan(whole);
  expect(jaegerTag(root, 'gen_ai.operation.name')).toBe('invoke_agent');
  expect(jaegerTag(root, 'loopguard.run.stopped')).toBe(true);
  expect(jaegerTag(root, 'loopguard.run.max_level')).toBe('break');
  expect(jaegerTag(root, 'loopguard.run.stop_reason')).toBe(breakEvent['loopguard.detector']);
  expect(jaegerTag(root, 'loopguard.run.tool_calls')).toBe(expected.toolCalls);
  expect(Number(jaegerTag(root, 'loopguard.run.detections'))).toBeGreaterThanOrEqual(1);
  return { trace: whole, breakSpan, breakEvent, root };
}

/** A normal run: every tool span numbered, none flagged, no event, root not stopped. */
export async function expectNormalRunInJaeger(
  queryUrl: string,
  expected: { traceId: string; spans: number; toolCalls: number },
): Promise<JaegerTrace> {
  const whole = await waitForWholeTrace(queryUrl, expected.traceId, expected.spans);
  const tools = toolSpans(whole);
  expect(tools).toHaveLength(expected.toolCalls);
  expect(tools.map((span) => jaegerTag(span, 'loopguard.step'))).toEqual(tools.map((_, index) => index + 1));
  for (const span of whole.spans) {
    expect(jaegerTag(span, 'loopguard.level')).toBeUndefined();
    expect(jaegerEvents(span, 'loopguard.loop_detected')).toEqual([]);
  }
  const root = rootSpan(whole);
  expect(jaegerTag(root, 'loopguard.run.stopped')).toBe(false);
  expect(jaegerTag(root, 'loopguard.run.tool_calls')).toBe(expected.toolCalls);
  expect(jaegerTag(root, 'loopguard.run.detections')).toBe(0);
  return whole;
}
