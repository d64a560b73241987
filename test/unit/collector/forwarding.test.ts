import { afterEach, describe, expect, it } from 'vitest';
import { startCollector } from '../../../src/collector/index.js';
import type { RunningCollector, SpanAnnotator } from '../../../src/collector/index.js';
import { parseRetryAfter, splitIntoChunks } from '../../../src/collector/forwarder.js';
import { decodeRpcStatusJson, decodeTraceRequestJson } from '../../../src/collector/otlp-json.js';
import { countSpans } from '../../../src/collector/otlp-model.js';
import type { SpanShape } from '../../../src/span-shape.js';
import { attr, jsonRequest, protoRequest, spansOf, startUpstream, waitFor } from './helpers.js';
import type { Upstream } from './helpers.js';

const hex = (b: Uint8Array | undefined): string => Buffer.from(b ?? []).toString('hex');

class RecordingAnnotator implements SpanAnnotator {
  readonly spanIds: string[] = [];
  onStart(): void {}
  onEnding(span: SpanShape): void {
    this.spanIds.push(span.spanContext().spanId);
  }
  onEnd(): void {}
  verdict(): unknown {
    return undefined;
  }
}

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

async function start(config: Parameters<typeof startCollector>[0], annotator: SpanAnnotator = new RecordingAnnotator()): Promise<RunningCollector> {
  collector = await startCollector(
    { listen: { host: '127.0.0.1', port: 0 }, ...config },
    { createAnnotator: () => annotator, log: (m) => logs.push(m) },
  );
  return collector;
}

function sendJson(body: unknown): Promise<Response> {
  return fetch(`${collector!.url}/v1/traces`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
}

const idsOf = (body: Record<string, unknown>): string[] =>
  (body as any).resourceSpans[0].scopeSpans[0].spans.map((s: { spanId: string }) => s.spanId);

async function scrape(): Promise<string> {
  return (await fetch(`${collector!.url}/metrics`)).text();
}

function metricValue(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('forwarding', () => {
  it('retries after 503 from upstream (honouring Retry-After) and loses nothing', async () => {
    upstream = await startUpstream();
    upstream.respond = (_req, attempt, res) => {
      if (attempt === 1) {
        res.writeHead(503, { 'retry-after': '1' }).end();
        return false;
      }
      if (attempt === 2) {
        res.writeHead(429).end();
        return false;
      }
      return true;
    };
    await start({
      forward: { endpoint: upstream.url, retry: { initialBackoffMs: 5, maxBackoffMs: 20 } },
      batch: { maxSpans: 100, intervalMs: 5 },
    });
    const sent: string[] = [];
    for (let i = 0; i < 5; i++) {
      const body = jsonRequest(10);
      sent.push(...idsOf(body));
      expect((await sendJson(body)).status).toBe(200);
    }
    await waitFor(() => spansOf(upstream!.accepted).length >= 50, 10_000, 'all spans upstream');
    expect(spansOf(upstream.accepted).map((s) => hex(s.spanId)).sort()).toEqual(sent.sort());
    expect(upstream.requests.length).toBeGreaterThan(upstream.accepted.length);
    // The server's Retry-After wins over the (5 ms) backoff; without one, the backoff applies.
    expect(logs).toContain('forward attempt 1 failed (HTTP 503); retrying in 1000 ms');
    expect(logs.find((l) => l.startsWith('forward attempt 2 failed (HTTP 429)'))).toMatch(/retrying in \d{1,2} ms$/);
    const metrics = await scrape();
    expect(metricValue(metrics, 'loopguard_collector_spans_forwarded_total')).toBe(50);
    expect(metricValue(metrics, 'loopguard_collector_spans_received_total')).toBe(50);
    expect(metricValue(metrics, 'loopguard_collector_spans_dropped_total')).toBe(0);
  });

  it('retries connection errors and drops (and counts) a batch only when out of attempts', async () => {
    const gone = await startUpstream();
    const url = gone.url;
    await gone.close();
    await start({ forward: { endpoint: url, retry: { initialBackoffMs: 5, maxBackoffMs: 10, maxAttempts: 3 } }, batch: { intervalMs: 0 } });
    expect((await sendJson(jsonRequest(4))).status).toBe(200);
    await waitFor(() => logs.some((l) => l.startsWith('dropped 4 spans')), 10_000, 'drop log');
    expect(logs.filter((l) => /forward attempt \d failed \(fetch failed: .*ECONNREFUSED/.test(l))).toHaveLength(2);
    expect(logs.find((l) => l.startsWith('dropped 4 spans'))).toMatch(/gave up after 3 attempts/);
    expect(metricValue(await scrape(), 'loopguard_collector_spans_dropped_total')).toBe(4);
  });

  it('drops a batch the upstream refuses for good (400), and keeps going', async () => {
    upstream = await startUpstream();
    upstream.respond = (_req, attempt, res) => {
      if (attempt === 1) {
        res.writeHead(400).end();
        return false;
      }
      return true;
    };
    await start({ forward: { endpoint: upstream.url }, batch: { intervalMs: 0 } });
    await sendJson(jsonRequest(3));
    await waitFor(() => upstream!.requests.length === 1);
    await sendJson(jsonRequest(2));
    await waitFor(() => upstream!.accepted.length === 1);
    expect(spansOf(upstream.accepted)).toHaveLength(2);
    const metrics = await scrape();
    expect(metricValue(metrics, 'loopguard_collector_spans_dropped_total')).toBe(3);
    expect(metricValue(metrics, 'loopguard_collector_spans_forwarded_total')).toBe(2);
  });

  it('forwards as JSON with gzip and custom headers when configured', async () => {
    upstream = await startUpstream();
    await start({
      forward: { endpoint: upstream.url, protocol: 'http/json', compression: 'gzip', headers: { 'x-tenant': 'blue' } },
      batch: { intervalMs: 0 },
    });
    await sendJson(jsonRequest(2));
    await waitFor(() => upstream!.accepted.length === 1);
    const got = upstream.accepted[0]!;
    expect(got.contentType).toBe('application/json');
    expect(got.headers['content-encoding']).toBe('gzip');
    expect(got.headers['x-tenant']).toBe('blue');
    expect(spansOf([got])).toHaveLength(2);
  });

  it('forwards spans even when detection throws on them, and counts the errors', async () => {
    upstream = await startUpstream();
    const throwing: SpanAnnotator = {
      onStart: () => {},
      onEnding: (span) => {
        span.setAttribute('test.before_throw', 1);
        if (span.name === 'span-1') throw new Error('detector exploded');
      },
      onEnd: () => {},
      verdict: () => undefined,
    };
    await start({ forward: { endpoint: upstream.url }, batch: { intervalMs: 0 } }, throwing);
    expect((await sendJson(jsonRequest(3))).status).toBe(200);
    await waitFor(() => spansOf(upstream!.accepted).length === 3);
    expect(spansOf(upstream.accepted).map((s) => attr(s, 'test.before_throw'))).toEqual([1, 1, 1]);
    expect(metricValue(await scrape(), 'loopguard_collector_detection_errors_total')).toBe(1);
    expect(logs.some((l) => l.includes('detector exploded'))).toBe(true);
  });
});

describe('arrival order', () => {
  it('feeds spans to detection and forwards them in request order: resource spans, then scopes, then spans', async () => {
    upstream = await startUpstream();
    const annotator = new RecordingAnnotator();
    await start({ forward: { endpoint: upstream.url }, batch: { intervalMs: 0 } }, annotator);
    const a = jsonRequest(3) as any;
    const b = jsonRequest(2) as any;
    const c = jsonRequest(2) as any;
    a.resourceSpans[0].scopeSpans.push(b.resourceSpans[0].scopeSpans[0]);
    a.resourceSpans.push(c.resourceSpans[0]);
    const expected = [...idsOf(a), ...b.resourceSpans[0].scopeSpans[0].spans.map((s: { spanId: string }) => s.spanId), ...idsOf(c)];
    expect((await sendJson(a)).status).toBe(200);
    expect(annotator.spanIds).toEqual(expected);
    await waitFor(() => spansOf(upstream!.accepted).length === 7);
    expect(spansOf(upstream.accepted).map((s) => hex(s.spanId))).toEqual(expected);
  });
});

describe('backpressure', () => {
  it('answers 503 with Retry-After when the queue is full, enqueues nothing of that request, and recovers', async () => {
    upstream = await startUpstream();
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    upstream.respond = async () => {
      await released;
      return true;
    };
    const annotator = new RecordingAnnotator();
    await start(
      { forward: { endpoint: upstream.url }, queue: { maxSpans: 20, retryAfterSeconds: 7 }, batch: { maxSpans: 10, intervalMs: 0 } },
      annotator,
    );
    expect((await sendJson(jsonRequest(10))).status).toBe(200);
    expect((await sendJson(jsonRequest(10))).status).toBe(200);
    const refusedBody = jsonRequest(5);
    const refused = await sendJson(refusedBody);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('7');
    expect(decodeRpcStatusJson(await refused.text())).toEqual({ code: 14, message: 'forward queue is full; retry later' });
    // Not seen by detection either: the sender's retry must not count twice.
    expect(annotator.spanIds).toHaveLength(20);
    const metrics = await scrape();
    expect(metricValue(metrics, 'loopguard_collector_queue_size')).toBe(20);
    expect(metricValue(metrics, 'loopguard_collector_requests_rejected_total{reason="backpressure"}')).toBe(1);

    release();
    await waitFor(() => spansOf(upstream!.accepted).length === 20);
    expect((await sendJson(refusedBody)).status).toBe(200);
    await waitFor(() => spansOf(upstream!.accepted).length === 25);
    expect(new Set(spansOf(upstream.accepted).map((s) => hex(s.spanId))).size).toBe(25);
  });

  it('takes a request larger than the whole queue when the queue is empty', async () => {
    upstream = await startUpstream();
    await start({ forward: { endpoint: upstream.url }, queue: { maxSpans: 5 }, batch: { maxSpans: 4, intervalMs: 0 } });
    expect((await sendJson(jsonRequest(9))).status).toBe(200);
    await waitFor(() => spansOf(upstream!.accepted).length === 9);
    expect(upstream.accepted.map((r) => spansOf([r]).length)).toEqual([4, 4, 1]);
  });
});

describe('forwarder helpers', () => {
  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('999999')).toBe(300_000);
  });

  it('splits a request into batches without moving spans across resources or scopes', () => {
    const a = jsonRequest(3) as any;
    const b = jsonRequest(4) as any;
    a.resourceSpans.push(b.resourceSpans[0]);
    const request = decodeTraceRequestJson(JSON.stringify(a));
    const chunks = splitIntoChunks(request, 5);
    expect(chunks.map((c) => c.spans)).toEqual([5, 2]);
    expect(chunks[0]!.resourceSpans).toHaveLength(2);
    expect(chunks[0]!.resourceSpans[1]!.resource).toBe(request.resourceSpans![1]!.resource);
    expect(chunks.reduce((n, c) => n + countSpans({ resourceSpans: c.resourceSpans }), 0)).toBe(7);
  });
});

describe('forwarding received protobuf spans as their bytes plus what detection appended', () => {
  it('forwards appended attributes and events once, and a changed received attribute with its new value only', async () => {
    upstream = await startUpstream();
    const editing: SpanAnnotator = {
      onStart: () => {},
      onEnding: (span) => {
        span.setAttribute('test.appended', 'yes');
        span.setAttribute('test.appended', 'twice'); // set again: still one attribute
        if (span.name === 'span-1') span.setAttribute('existing', 'changed');
        (span as unknown as { addEvent(name: string): void }).addEvent('test.event');
      },
      onEnd: () => {},
      verdict: () => undefined,
    };
    await start({ forward: { endpoint: upstream.url }, batch: { intervalMs: 0 } }, editing);
    const body = jsonRequest(2, { attributes: [{ key: 'existing', value: { stringValue: 'original' } }], events: [{ name: 'received' }] });
    const res = await fetch(`${collector!.url}/v1/traces`, { method: 'POST', body: protoRequest(body), headers: { 'content-type': 'application/x-protobuf' } });
    expect(res.status).toBe(200);
    await waitFor(() => spansOf(upstream!.accepted).length === 2);
    const [first, second] = spansOf(upstream.accepted);
    expect(first!.attributes!.map((kv) => [kv.key, kv.value?.stringValue])).toEqual([
      ['existing', 'original'],
      ['test.appended', 'twice'],
    ]);
    expect(second!.attributes!.map((kv) => [kv.key, kv.value?.stringValue])).toEqual([
      ['existing', 'changed'],
      ['test.appended', 'twice'],
    ]);
    for (const span of [first!, second!]) expect(span.events!.map((e) => e.name)).toEqual(['received', 'test.event']);
  });
});

describe('forward.maxConcurrentBatches', () => {
  it('keeps several batches in flight and delivers every span once', async () => {
    upstream = await startUpstream();
    const release = (() => {
      let open!: () => void;
      const opened = new Promise<void>((r) => (open = r));
      upstream.respond = async () => {
        await opened;
        return true;
      };
      return open;
    })();
    await start({ forward: { endpoint: upstream.url, maxConcurrentBatches: 3 }, batch: { maxSpans: 4, intervalMs: 0 } });
    const body = jsonRequest(12);
    expect((await sendJson(body)).status).toBe(200);
    // Three batches of 4 are sent before the first one is answered.
    await waitFor(() => upstream!.requests.length === 3, 5000, 'three batches in flight');
    release();
    await waitFor(() => spansOf(upstream!.accepted).length === 12);
    expect(spansOf(upstream.accepted).map((s) => hex(s.spanId)).sort()).toEqual(idsOf(body).sort());
    expect(metricValue(await scrape(), 'loopguard_collector_spans_forwarded_total')).toBe(12);
  });
});
