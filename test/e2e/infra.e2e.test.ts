/**
 * Smoke test of the e2e infrastructure itself: the binaries that
 * scripts/e2e/install.sh builds start with the committed configs, and the
 * support helpers reach them. A span goes SDK -> Jaeger, then SDK -> gateway
 * Collector -> Jaeger (the loopguard hop looped back to the gateway's own
 * annotated receiver), the count connector turns its loop_detected event
 * into a metric, and Prometheus scrapes it and loads the alert rules.
 */
import { randomUUID } from 'node:crypto';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  collectorConfigPath,
  createOtlpTracer,
  describeLog,
  freePort,
  jaegerEvents,
  jaegerFindTraces,
  jaegerTag,
  jaegerWaitForTraces,
  prometheusAlerts,
  prometheusQuery,
  prometheusRules,
  prometheusTargets,
  startJaeger,
  startLoopguardCollector,
  startOtelcol,
  startPrometheus,
  waitFor,
  type JaegerInstance,
  type OtelcolInstance,
  type PrometheusInstance,
  type ServiceHandle,
} from './support/index.js';

const running: { service: ServiceHandle; stop(): Promise<void> }[] = [];
let jaeger: JaegerInstance;

beforeAll(async () => {
  jaeger = await startJaeger();
  running.push(jaeger);
});

afterEach(({ task }) => {
  if (task.result?.state === 'fail') {
    for (const { service } of running) console.error(describeLog(service, 60));
  }
});

afterAll(async () => {
  await Promise.all(running.map((instance) => instance.stop()));
});

/** A GenAI tool span as loopguard annotates it when a loop is decided. */
function emitAnnotatedToolSpan(tracer: ReturnType<typeof createOtlpTracer>['tracer'], level: string, detector: string): string {
  const span = tracer.startSpan('execute_tool search', {
    kind: SpanKind.INTERNAL,
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'search',
      'loopguard.level': level,
      'loopguard.step': 4,
    },
  });
  span.addEvent('loopguard.loop_detected', {
    'loopguard.detector': detector,
    'loopguard.level': level,
    'loopguard.count': 4,
    'loopguard.fingerprint': 'search:0123456789abcdef',
  });
  span.setStatus({ code: SpanStatusCode.OK });
  span.end();
  return span.spanContext().traceId;
}

describe('Jaeger v2 with collector-config/jaeger/config.yaml', () => {
  it('stores a span sent by the OTLP/HTTP exporter and finds it by service and tag', async () => {
    const serviceName = `infra-jaeger-${randomUUID().slice(0, 8)}`;
    const otlp = createOtlpTracer(jaeger.otlpHttpUrl, serviceName);
    const traceId = emitAnnotatedToolSpan(otlp.tracer, 'break', 'no-progress');
    await otlp.flush();
    await otlp.shutdown();

    const [trace, ...others] = await jaegerWaitForTraces(jaeger.queryUrl, { service: serviceName, tags: { 'loopguard.level': 'break' } });
    expect(others).toEqual([]);
    expect(trace!.traceID).toBe(traceId);
    const span = trace!.spans[0]!;
    expect(span.operationName).toBe('execute_tool search');
    expect(jaegerTag(span, 'gen_ai.tool.name')).toBe('search');
    expect(jaegerEvents(span, 'loopguard.loop_detected')).toEqual([
      expect.objectContaining({ 'loopguard.detector': 'no-progress', 'loopguard.level': 'break', 'loopguard.count': 4 }),
    ]);
    expect(trace!.processes[span.processID]?.serviceName).toBe(serviceName);

    // The tag filter really filters.
    expect(await jaegerFindTraces(jaeger.queryUrl, { service: serviceName, tags: { 'loopguard.level': 'warning' } })).toEqual([]);
  });

  it('finds a stopped run by its boolean root-span attribute, as the dashboard searches it', async () => {
    const serviceName = `infra-jaeger-run-${randomUUID().slice(0, 8)}`;
    const otlp = createOtlpTracer(jaeger.otlpHttpUrl, serviceName);
    const stopped = otlp.tracer.startSpan('invoke_agent answer-ticket', {
      attributes: { 'loopguard.run.stopped': true, 'loopguard.run.stop_reason': 'loop', 'loopguard.run.detections': 3 },
    });
    stopped.end();
    otlp.tracer.startSpan('invoke_agent other-ticket', { attributes: { 'loopguard.run.stopped': false } }).end();
    await otlp.flush();
    await otlp.shutdown();

    // Grafana's Jaeger panel sends the logfmt tag `loopguard.run.stopped=true` as this JSON filter.
    const [found, ...others] = await jaegerWaitForTraces(jaeger.queryUrl, { service: serviceName, tags: { 'loopguard.run.stopped': 'true' } });
    expect(others).toEqual([]);
    expect(found!.traceID).toBe(stopped.spanContext().traceId);
    expect(jaegerTag(found!.spans[0]!, 'loopguard.run.stop_reason')).toBe('loop');
  });
});

describe('scale-out Collectors', () => {
  it('routes whole traces through the load balancer to both sidecars and on to Jaeger', async () => {
    // Until loopguard collectors sit behind them, the sidecars forward straight to Jaeger.
    const sidecars: OtelcolInstance[] = [];
    for (const name of ['sidecar-1', 'sidecar-2']) {
      const sidecar = await startOtelcol(collectorConfigPath('otelcol', 'scale-out-sidecar.yaml'), { LOOPGUARD_COLLECTOR_ENDPOINT: jaeger.otlpHttpUrl }, { name });
      running.push(sidecar);
      sidecars.push(sidecar);
    }
    const balancer = await startOtelcol(
      collectorConfigPath('otelcol', 'scale-out-lb.yaml'),
      { LOOPGUARD_SIDECARS: `[${sidecars.map((sidecar) => sidecar.sidecarGrpcEndpoint).join(', ')}]` },
      { name: 'otelcol-lb' },
    );
    running.push(balancer);

    const serviceName = `infra-scale-out-${randomUUID().slice(0, 8)}`;
    const otlp = createOtlpTracer(balancer.agentsUrl, serviceName);
    // 20 traces over 2 replicas: the chance that one gets none is 2^-19.
    const traces = 20;
    const spansPerTrace = 3;
    for (let run = 0; run < traces; run++) {
      const root = otlp.tracer.startSpan(`invoke_agent run-${run}`);
      const parent = trace.setSpan(context.active(), root);
      for (let call = 1; call < spansPerTrace; call++) otlp.tracer.startSpan(`execute_tool step-${call}`, {}, parent).end();
      root.end();
    }
    await otlp.flush();
    await otlp.shutdown();
    expect(otlp.exported.spans).toBe(traces * spansPerTrace);

    const found = await jaegerWaitForTraces(jaeger.queryUrl, { service: serviceName }, { minTraces: traces });
    expect(found).toHaveLength(traces);
    for (const run of found) expect(run.spans).toHaveLength(spansPerTrace);

    // Each sidecar got a share, and only whole traces (spans come in threes).
    const accepted = await Promise.all(
      sidecars.map(async (sidecar) => {
        const text = await (await fetch(sidecar.telemetryUrl)).text();
        const match = text.match(/^otelcol_receiver_accepted_spans(?:_total)?\{[^}]*\} (\d+)/m);
        if (!match) throw new Error(`no otelcol_receiver_accepted_spans in ${sidecar.telemetryUrl}:\n${text.slice(0, 2000)}`);
        return Number(match[1]);
      }),
    );
    expect(accepted.reduce((sum, count) => sum + count, 0)).toBe(traces * spansPerTrace);
    for (const count of accepted) {
      expect(count).toBeGreaterThan(0);
      expect(count % spansPerTrace).toBe(0);
    }
  });
});

describe('gateway Collector and Prometheus', () => {
  let gateway: OtelcolInstance;
  let prometheus: PrometheusInstance;
  const serviceName = `infra-gateway-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    // Until the loopguard collector sits between them, the gateway's
    // "loopguard" exporter points at its own annotated receiver.
    const annotatedPort = await freePort();
    gateway = await startOtelcol(collectorConfigPath('otelcol', 'gateway.yaml'), {
      OTELCOL_ANNOTATED_HTTP_PORT: String(annotatedPort),
      LOOPGUARD_COLLECTOR_ENDPOINT: `http://127.0.0.1:${annotatedPort}`,
      JAEGER_OTLP_ENDPOINT: jaeger.otlpHttpUrl,
    });
    running.push(gateway);
    prometheus = await startPrometheus(
      collectorConfigPath('prometheus', 'prometheus.yml'),
      collectorConfigPath('prometheus', 'rules', 'loopguard.rules.yml'),
      { targets: { 'otelcol-gateway': [gateway.prometheusTarget] } },
    );
    running.push(prometheus);
  });

  it('passes agent spans through to Jaeger and counts loop_detected events', async () => {
    const otlp = createOtlpTracer(gateway.agentsUrl, serviceName);
    const loopTraceId = emitAnnotatedToolSpan(otlp.tracer, 'warning', 'repeat');
    const plain = otlp.tracer.startSpan('execute_tool read_file', { attributes: { 'gen_ai.tool.name': 'read_file' } });
    plain.end();
    await otlp.flush();
    await otlp.shutdown();

    const traces = await jaegerWaitForTraces(jaeger.queryUrl, { service: serviceName }, { minTraces: 2 });
    expect(traces.map((trace) => trace.traceID).sort()).toEqual([loopTraceId, plain.spanContext().traceId].sort());
    const flagged = traces.find((trace) => trace.traceID === loopTraceId)!.spans[0]!;
    expect(jaegerEvents(flagged, 'loopguard.loop_detected')).toHaveLength(1);

    const exposition = await waitFor(
      async () => {
        const text = await (await fetch(`http://${gateway.prometheusTarget}/metrics`)).text();
        return text.includes('loopguard_spans_flagged_total') ? text : undefined;
      },
      { description: 'the count connector metrics on the prometheus exporter' },
    );
    expect(exposition).toMatch(/loopguard_spanevents_loop_detected_total\{[^}]*loopguard_detector="repeat"[^}]*loopguard_level="warning"[^}]*\} 1\b/);
    expect(exposition).toMatch(/loopguard_spans_flagged_total\{[^}]*gen_ai_tool_name="search"[^}]*loopguard_level="warning"[^}]*\} 1\b/);
    // The plain span has no loopguard.level: not counted as flagged.
    expect(exposition).not.toMatch(/loopguard_spans_flagged_total\{[^}]*gen_ai_tool_name="read_file"/);
  });

  it('Prometheus scrapes the gateway and loads every alert rule', async () => {
    const targets = await waitFor(
      async () => {
        const active = await prometheusTargets(prometheus.url);
        return active.some((target) => target.health === 'up') ? active : undefined;
      },
      { description: 'the otelcol-gateway target to be up' },
    );
    expect(targets.filter((target) => target.health === 'up').map((target) => target.scrapePool)).toEqual(['otelcol-gateway']);

    const samples = await waitFor(
      async () => {
        const result = await prometheusQuery(prometheus.url, `sum by (loopguard_detector) (loopguard_spanevents_loop_detected_total{job="${serviceName}"})`);
        return result.length > 0 ? result : undefined;
      },
      { description: 'the count connector series in Prometheus' },
    );
    expect(samples).toEqual([{ metric: { loopguard_detector: 'repeat' }, value: [expect.any(Number), '1'] }]);

    const groups = await waitFor(
      async () => {
        const loaded = await prometheusRules(prometheus.url);
        return loaded.every((group) => group.rules.every((rule) => rule.health === 'ok')) ? loaded : undefined;
      },
      { description: 'every rule evaluated with health ok' },
    );
    // The API lists groups in its own order.
    expect(groups.map((group) => group.name).sort()).toEqual(['loopguard.collector', 'loopguard.exits', 'loopguard.runs']);
    expect(groups.flatMap((group) => group.rules.map((rule) => rule.name)).sort()).toEqual([
      'LoopguardBudgetStopsFrequent',
      'LoopguardCollectorDroppingSpans',
      'LoopguardCollectorSheddingLoad',
      'LoopguardRunStopped',
      'LoopguardToolLoopingAcrossRuns',
      'LoopguardUnverifiedCompletion',
      'LoopguardWarningRateHigh',
    ]);
    // Nothing here stopped a run or shed load.
    expect(await prometheusAlerts(prometheus.url)).toEqual([]);
  });
});

describe('gateway with the loopguard collector in the loop', () => {
  it('carries agent spans gateway -> loopguard collector -> gateway -> Jaeger, and Prometheus scrapes both', async () => {
    const annotatedPort = await freePort();
    const loopguard = await startLoopguardCollector({ forwardEndpoint: `http://127.0.0.1:${annotatedPort}` });
    running.push(loopguard);
    const gateway = await startOtelcol(
      collectorConfigPath('otelcol', 'gateway.yaml'),
      {
        OTELCOL_ANNOTATED_HTTP_PORT: String(annotatedPort),
        LOOPGUARD_COLLECTOR_ENDPOINT: loopguard.url,
        JAEGER_OTLP_ENDPOINT: jaeger.otlpHttpUrl,
      },
      { name: 'otelcol-gateway' },
    );
    running.push(gateway);
    const prometheus = await startPrometheus(
      collectorConfigPath('prometheus', 'prometheus.yml'),
      collectorConfigPath('prometheus', 'rules', 'loopguard.rules.yml'),
      { targets: { 'loopguard-collector': [loopguard.target], 'otelcol-gateway': [gateway.prometheusTarget] } },
    );
    running.push(prometheus);

    const serviceName = `infra-loopguard-${randomUUID().slice(0, 8)}`;
    const otlp = createOtlpTracer(gateway.agentsUrl, serviceName);
    const root = otlp.tracer.startSpan('invoke_agent smoke');
    otlp.tracer
      .startSpan('execute_tool search', { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search' } }, trace.setSpan(context.active(), root))
      .end();
    root.end();
    await otlp.flush();
    await otlp.shutdown();

    const [found] = await jaegerWaitForTraces(jaeger.queryUrl, { service: serviceName });
    expect(found!.traceID).toBe(root.spanContext().traceId);
    await waitFor(async () => (await jaegerFindTraces(jaeger.queryUrl, { service: serviceName }))[0]?.spans.length === 2, {
      description: 'both spans of the trace in Jaeger',
    });

    const received = await waitFor(
      async () => {
        const result = await prometheusQuery(prometheus.url, 'sum(loopguard_collector_spans_received_total)');
        return Number(result[0]?.value[1] ?? 0) >= 2 ? result : undefined;
      },
      { description: 'loopguard_collector_spans_received_total scraped from the loopguard collector' },
    );
    expect(Number(received[0]!.value[1])).toBe(2);
    // Targets are discovered and scraped independently: wait until both were scraped once.
    const up = await waitFor(
      async () => {
        const samples = await prometheusQuery(prometheus.url, 'up');
        return samples.length === 2 ? samples : undefined;
      },
      { description: 'both scrape targets to have an up series' },
    );
    expect(Object.fromEntries(up.map((sample) => [sample.metric.job, sample.value[1]]))).toEqual({ 'loopguard-collector': '1', 'otelcol-gateway': '1' });
  });
});
