import { afterEach, describe, expect, it } from 'vitest';
import { startCollector } from '../../../src/collector/index.js';
import type { RunningCollector, SpanAnnotator } from '../../../src/collector/index.js';
import { decodeRpcStatusProto } from '../../../src/collector/otlp-protobuf.js';
import { renderPrometheusText } from '../../../src/collector/prometheus-text.js';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { jsonRequest, spansOf, startUpstream, waitFor } from './helpers.js';
import type { Upstream } from './helpers.js';

const noAnnotations: SpanAnnotator = { onStart: () => {}, onEnd: () => {}, verdict: (k) => (k === 'known' ? { runKey: k, stopped: false } : undefined) };

let upstream: Upstream | undefined;
let collector: RunningCollector | undefined;
const logs: string[] = [];

afterEach(async () => {
  await collector?.close();
  await upstream?.close();
  collector = undefined;
  upstream = undefined;
  logs.length = 0;
});

async function start(config: Parameters<typeof startCollector>[0], annotator = noAnnotations): Promise<RunningCollector> {
  collector = await startCollector({ listen: { host: '127.0.0.1', port: 0 }, ...config }, { createAnnotator: () => annotator, log: (m) => logs.push(m) });
  return collector;
}

const post = (body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`${collector!.url}/v1/traces`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });

/** Prometheus text format 0.0.4, line by line. */
const HELP = /^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*$/;
const TYPE = /^# TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (counter|gauge|histogram|summary|untyped)$/;
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\["\\\\n])*"';
const SAMPLE = new RegExp(`^[a-zA-Z_:][a-zA-Z0-9_:]*(\\{${LABEL}(,${LABEL})*\\})? (-?[0-9.e+-]+|NaN|[+-]Inf)$`);

function expectPrometheusText(text: string): void {
  expect(text.endsWith('\n')).toBe(true);
  for (const line of text.slice(0, -1).split('\n')) {
    expect(HELP.test(line) || TYPE.test(line) || SAMPLE.test(line), line).toBe(true);
  }
}

describe('GET /metrics', () => {
  it('serves Prometheus text with the collector metrics', async () => {
    await start({});
    await post(jsonRequest(3));
    await post('nope', {});
    await fetch(`${collector!.url}/v1/traces`, { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } });
    const res = await fetch(`${collector!.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    expectPrometheusText(text);
    for (const line of [
      '# TYPE loopguard_collector_spans_received_total counter',
      'loopguard_collector_spans_received_total 3',
      'loopguard_collector_spans_forwarded_total 0',
      'loopguard_collector_spans_dropped_total 0',
      'loopguard_collector_detection_errors_total 0',
      '# TYPE loopguard_collector_queue_size gauge',
      'loopguard_collector_queue_size 0',
      'loopguard_collector_requests_rejected_total{reason="malformed"} 1',
      'loopguard_collector_requests_rejected_total{reason="unsupported_media_type"} 1',
      'loopguard_collector_requests_rejected_total{reason="backpressure"} 0',
      'loopguard_collector_requests_rejected_total{reason="unauthorized"} 0',
      'loopguard_collector_requests_rejected_total{reason="too_large"} 0',
    ]) {
      expect(text.split('\n'), line).toContain(line);
    }
  });

  it('renders the detection engine instruments the way the dashboards expect', async () => {
    const reader = new (class extends MetricReader {
      protected override onForceFlush = () => Promise.resolve();
      protected override onShutdown = () => Promise.resolve();
    })();
    const provider = new MeterProvider({ readers: [reader] });
    const meter = provider.getMeter('loopguard');
    meter.createCounter('loopguard.detections').add(2, { detector: 'ping-pong', level: 'warning', 'gen_ai.tool.name': 'say "hi"\n\\' });
    meter.createObservableGauge('loopguard.runs.active').addCallback((r) => r.observe(4));
    meter.createUpDownCounter('loopguard.things').add(-1);
    meter.createHistogram('loopguard.latency', { advice: { explicitBucketBoundaries: [1, 10] } }).record(5);
    const text = renderPrometheusText((await reader.collect()).resourceMetrics);
    expectPrometheusText(text);
    expect(text).toContain('# TYPE loopguard_detections_total counter\n');
    expect(text).toContain('loopguard_detections_total{detector="ping-pong",level="warning",gen_ai_tool_name="say \\"hi\\"\\n\\\\"} 2\n');
    expect(text).toContain('# TYPE loopguard_runs_active gauge\nloopguard_runs_active 4\n');
    expect(text).toContain('# TYPE loopguard_things gauge\nloopguard_things -1\n');
    expect(text).toContain('loopguard_latency_bucket{le="1"} 0\nloopguard_latency_bucket{le="10"} 1\nloopguard_latency_bucket{le="+Inf"} 1\nloopguard_latency_sum 5\nloopguard_latency_count 1\n');
    await provider.shutdown();
  });
});

describe('bearer token', () => {
  it('is required everywhere but /healthz', async () => {
    await start({ auth: { token: 's3cret' } });
    const url = collector!.url;
    const cases: [string, RequestInit][] = [
      ['/v1/traces', { method: 'POST', body: JSON.stringify(jsonRequest(1)), headers: { 'content-type': 'application/json' } }],
      ['/metrics', {}],
      ['/v1/runs/known', {}],
      ['/nowhere', {}],
    ];
    for (const [path, init] of cases) {
      const missing = await fetch(url + path, init);
      expect(missing.status, path).toBe(401);
      expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="loopguard"');
      const wrong = await fetch(url + path, { ...init, headers: { ...(init.headers as object), authorization: 'Bearer s3cre' } });
      expect(wrong.status, path).toBe(401);
      const right = await fetch(url + path, { ...init, headers: { ...(init.headers as object), authorization: 'Bearer s3cret' } });
      expect(right.status, path).not.toBe(401);
    }
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const proto = await fetch(`${url}/v1/traces`, { method: 'POST', body: new Uint8Array(0), headers: { 'content-type': 'application/x-protobuf' } });
    expect(proto.status).toBe(401);
    expect(decodeRpcStatusProto(new Uint8Array(await proto.arrayBuffer()))).toEqual({ code: 16, message: 'missing or invalid bearer token' });
    const metrics = await (await fetch(`${url}/metrics`, { headers: { authorization: 'bearer s3cret' } })).text();
    expect(metrics).toContain('loopguard_collector_requests_rejected_total{reason="unauthorized"} 9\n');
  });
});

describe('graceful shutdown', () => {
  it('answers 503 while draining, flushes the queue, then stops listening', async () => {
    upstream = await startUpstream();
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    upstream.respond = async () => {
      await released;
      return true;
    };
    await start({ forward: { endpoint: upstream.url }, batch: { maxSpans: 5, intervalMs: 0 }, queue: { retryAfterSeconds: 3 } });
    const url = collector!.url;
    expect((await post(jsonRequest(12))).status).toBe(200);
    await waitFor(() => upstream!.requests.length === 1);
    const closing = collector!.close();
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({ status: 'draining' });
    const late = await post(jsonRequest(1));
    expect(late.status).toBe(503);
    expect(late.headers.get('retry-after')).toBe('3');
    expect((await fetch(`${url}/v1/runs/known`)).status).toBe(200);
    release();
    await closing;
    expect(spansOf(upstream.accepted)).toHaveLength(12);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    collector = undefined;
  });

  it('gives up on the queue after shutdown.timeoutMs and says what it dropped', async () => {
    upstream = await startUpstream();
    upstream.respond = () => new Promise<boolean>(() => {}); // never answers
    await start({ forward: { endpoint: upstream.url }, batch: { maxSpans: 4, intervalMs: 0 }, shutdown: { timeoutMs: 200 } });
    expect((await post(jsonRequest(10))).status).toBe(200);
    await waitFor(() => upstream!.requests.length === 1);
    await collector!.close();
    collector = undefined;
    // The batch in flight was never acknowledged: it counts with the queued ones, once.
    expect(logs).toContain('dropped 10 queued spans: drain timed out after 200 ms');
    expect(logs.filter((l) => l.startsWith('dropped'))).toHaveLength(1);
  });
});

describe('GET /v1/runs/{key}', () => {
  it('rejects bad percent-encoding and other methods', async () => {
    await start({});
    expect((await fetch(`${collector!.url}/v1/runs/%E0%A4%A`)).status).toBe(400);
    expect((await fetch(`${collector!.url}/v1/runs/known`, { method: 'DELETE' })).status).toBe(405);
    expect((await fetch(`${collector!.url}/v1/runs/`)).status).toBe(404);
  });

  it('answers 500 when the engine fails on a verdict, and keeps serving', async () => {
    await start({}, { ...noAnnotations, verdict: () => { throw new Error('engine broke'); } });
    const res = await fetch(`${collector!.url}/v1/runs/any`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: 'internal error' });
    expect(logs.some((l) => l.includes('engine broke'))).toBe(true);
    expect((await fetch(`${collector!.url}/healthz`)).status).toBe(200);
  });
});
