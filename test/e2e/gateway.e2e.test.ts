/**
 * Scenario: agent -> OpenTelemetry Collector gateway
 * (collector-config/otelcol/gateway.yaml) -> loopguard collector -> back to
 * the gateway's annotated receiver -> Jaeger, plus the gateway's count
 * connector turning loopguard's annotations into metrics.
 *
 * The agent is a separate process with the plain OpenTelemetry SDK (no
 * loopguard inside): whatever Jaeger shows about loops was decided by the
 * loopguard collector on the way.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { trackServices } from './scenarios/running-services.js';
import { nodeAgent, runAgent } from './scenarios/agent-process.js';
import { expectNormalRunInJaeger, expectStoppedRunInJaeger } from './scenarios/jaeger-runs.js';
import { parseExposition, sampleValue } from './scenarios/prometheus-text.js';
import {
  collectorConfigPath,
  freePort,
  jaegerEvents,
  jaegerTag,
  loopguardRunVerdict,
  startJaeger,
  startLoopguardCollector,
  startOtelcol,
  waitFor,
  type JaegerInstance,
  type LoopguardCollectorInstance,
  type OtelcolInstance,
} from './support/index.js';

interface RunLine {
  type: 'run' | 'done';
  mode: 'looping' | 'normal';
  traceId: string;
  toolCalls: number;
  spans: number;
  exportedSpans: number;
  failedSpans: number;
}

const services = trackServices();
let jaeger: JaegerInstance;
let loopguard: LoopguardCollectorInstance;
let gateway: OtelcolInstance;

beforeAll(async () => {
  await services.starting(async () => {
    jaeger = await startJaeger();
    services.add(jaeger);
    const annotatedPort = await freePort();
    loopguard = await startLoopguardCollector({
      forwardEndpoint: `http://127.0.0.1:${annotatedPort}`,
      env: { LOOPGUARD_COLLECTOR_BATCH_INTERVAL_MS: '100' },
    });
    services.add(loopguard);
    gateway = await startOtelcol(
      collectorConfigPath('otelcol', 'gateway.yaml'),
      {
        OTELCOL_ANNOTATED_HTTP_PORT: String(annotatedPort),
        LOOPGUARD_COLLECTOR_ENDPOINT: loopguard.url,
        JAEGER_OTLP_ENDPOINT: jaeger.otlpHttpUrl,
      },
      { name: 'otelcol-gateway' },
    );
    services.add(gateway);
  });
});

describe('agent -> Collector gateway -> loopguard collector -> Jaeger', () => {
  it('the looping run is annotated on the way and found in Jaeger; the count connector counts its events', async () => {
    const service = `e2e-gateway-${randomUUID().slice(0, 8)}`;
    const steps = 12;
    const { lines } = await runAgent<RunLine>({
      ...nodeAgent('genai-agent', 'genai-agent.ts', ['--endpoint', gateway.agentsUrl, '--service', service, '--looping', '1', '--normal', '1', '--steps', String(steps)]),
      timeoutMs: 60_000,
    });
    const done = lines.find((line) => line.type === 'done')!;
    expect(done).toMatchObject({ exportedSpans: 2 * (steps + 1), failedSpans: 0 });
    const looping = lines.find((line) => line.type === 'run' && line.mode === 'looping')!;
    const normal = lines.find((line) => line.type === 'run' && line.mode === 'normal')!;

    const stopped = await expectStoppedRunInJaeger(jaeger.queryUrl, {
      service,
      traceId: looping.traceId,
      spans: steps + 1,
      toolCalls: steps,
      tool: 'search_orders',
    });
    await expectNormalRunInJaeger(jaeger.queryUrl, { traceId: normal.traceId, spans: steps + 1, toolCalls: steps });

    // The loopguard collector that decided it still has the verdict.
    const verdict = await loopguardRunVerdict<{ stopped: boolean; level: string; stopReason: string; toolCalls: number }>(loopguard.url, looping.traceId);
    expect(verdict).toMatchObject({ stopped: true, level: 'break', stopReason: stopped.breakEvent['loopguard.detector'], toolCalls: steps });

    // What the count connector should have counted: the events and flagged spans Jaeger shows.
    const eventsByKey = new Map<string, number>();
    const flaggedByKey = new Map<string, number>();
    for (const span of stopped.trace.spans) {
      for (const event of jaegerEvents(span, 'loopguard.loop_detected')) {
        const key = `${event['loopguard.detector']}|${event['loopguard.level']}`;
        eventsByKey.set(key, (eventsByKey.get(key) ?? 0) + 1);
      }
      const level = jaegerTag(span, 'loopguard.level');
      if (level !== undefined) {
        const key = `${jaegerTag(span, 'gen_ai.tool.name')}|${level}`;
        flaggedByKey.set(key, (flaggedByKey.get(key) ?? 0) + 1);
      }
    }
    expect(eventsByKey.size).toBeGreaterThan(0);
    const metrics = await waitFor(
      async () => {
        const samples = parseExposition(await (await fetch(`http://${gateway.prometheusTarget}/metrics`)).text());
        const events = samples.filter((sample) => sample.name === 'loopguard_spanevents_loop_detected_total' && sample.labels.job === service);
        const total = events.reduce((sum, sample) => sum + sample.value, 0);
        const expected = [...eventsByKey.values()].reduce((sum, count) => sum + count, 0);
        return total >= expected ? samples : undefined;
      },
      { description: 'the count connector metrics for the run on the gateway prometheus exporter', timeoutMs: 30_000 },
    );
    for (const [key, count] of eventsByKey) {
      const [detector, level] = key.split('|');
      expect(sampleValue(metrics, 'loopguard_spanevents_loop_detected_total', { job: service, loopguard_detector: detector!, loopguard_level: level! }), key).toBe(count);
    }
    for (const [key, count] of flaggedByKey) {
      const [tool, level] = key.split('|');
      expect(sampleValue(metrics, 'loopguard_spans_flagged_total', { job: service, gen_ai_tool_name: tool!, loopguard_level: level! }), key).toBe(count);
    }
    // The normal run's tools were never flagged.
    expect(metrics.filter((sample) => sample.name === 'loopguard_spans_flagged_total' && sample.labels.job === service && sample.labels.gen_ai_tool_name !== 'search_orders')).toEqual([]);
  });
});
