/**
 * Scenario: an agent with loopguard in-process (`register()`), its exporter
 * pointed at Jaeger's OTLP/HTTP receiver by OTEL_EXPORTER_OTLP_ENDPOINT, as
 * the README tells users. The looping run is stopped in the agent, and the
 * stop is visible in Jaeger: the run is found by service and tag
 * `loopguard.level=break`, the tool span that reached break carries the
 * `loopguard.loop_detected` event, the root span the run summary.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { nodeAgent, runAgent } from './scenarios/agent-process.js';
import { expectNormalRunInJaeger, expectStoppedRunInJaeger } from './scenarios/jaeger-runs.js';
import { describeLog, startJaeger, type JaegerInstance } from './support/index.js';
import type { RunReport } from './agents/inprocess-agent.js';

let jaeger: JaegerInstance | undefined;

beforeAll(async () => {
  jaeger = await startJaeger();
});

afterEach(({ task }) => {
  if (task.result?.state === 'fail' && jaeger) console.error(describeLog(jaeger.service, 60));
});

afterAll(async () => {
  await jaeger?.stop();
});

describe('in-process agent -> Jaeger', () => {
  it('the run loopguard stopped is found by loopguard.level=break, with the event and the run summary', async () => {
    const service = `e2e-inprocess-${randomUUID().slice(0, 8)}`;
    const { lines } = await runAgent<RunReport>({
      ...nodeAgent('inprocess-agent', 'inprocess-agent.ts', ['--service', service], {
        OTEL_EXPORTER_OTLP_ENDPOINT: jaeger!.otlpHttpUrl,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      }),
      timeoutMs: 60_000,
    });
    const normal = lines.find((line) => line.run === 'answer-ticket');
    const looping = lines.find((line) => line.run === 'stuck-ticket');
    expect(normal).toMatchObject({ stopped: false, toolCalls: 4 });
    expect(looping).toMatchObject({ stopped: true });
    // A detector stopped it (not a fuse): the reason is the detector's name.
    expect(looping!.reason).toBe(looping!.detector);
    expect(looping!.toolCalls).toBe(looping!.breakStep! - 1);
    // The break came from the detectors, after some repeats, before the agent's own limit.
    expect(looping!.breakStep).toBeGreaterThan(2);
    expect(looping!.breakStep).toBeLessThan(30);

    // The refused call is still a tool span (loopguard.action=break), so the
    // run's tool spans are the calls made plus the refused one.
    const stopped = await expectStoppedRunInJaeger(jaeger!.queryUrl, {
      service,
      traceId: looping!.traceId,
      spans: 1 + looping!.breakStep!,
      toolCalls: looping!.breakStep!,
      tool: 'query_order',
      breakStep: looping!.breakStep!,
      reason: looping!.detector!,
    });
    expect(stopped.breakEvent['loopguard.detector']).toBe(looping!.detector);
    await expectNormalRunInJaeger(jaeger!.queryUrl, { traceId: normal!.traceId, spans: 1 + 4, toolCalls: 4 });
  });
});
