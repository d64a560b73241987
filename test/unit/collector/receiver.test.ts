import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCollector } from '../../../src/collector/index.js';
import type { RunningCollector, SpanAnnotator } from '../../../src/collector/index.js';
import { decodeRpcStatusJson, decodeTraceResponseJson, encodeTraceRequestJson } from '../../../src/collector/otlp-json.js';
import { decodeRpcStatusProto, decodeTraceResponseProto, encodeTraceRequestProto } from '../../../src/collector/otlp-protobuf.js';
import { decodeTraceRequestJson } from '../../../src/collector/otlp-json.js';
import type { SpanShape } from '../../../src/span-shape.js';
import { attr, jsonRequest, spansOf, startUpstream, waitFor } from './helpers.js';
import type { Upstream } from './helpers.js';

/** A small real annotator: marks every span and keeps a per-trace count as its "verdict". */
class CountingAnnotator implements SpanAnnotator {
  readonly seen = new Map<string, number>();
  onStart(): void {}
  onEnding(span: SpanShape): void {
    const key = span.spanContext().traceId;
    this.seen.set(key, (this.seen.get(key) ?? 0) + 1);
    span.setAttribute('test.annotated', true);
  }
  onEnd(): void {}
  verdict(runKey: string): unknown {
    const n = this.seen.get(runKey);
    return n === undefined ? undefined : { runKey, spans: n };
  }
}

let upstream: Upstream;
let collector: RunningCollector;
const annotator = new CountingAnnotator();
const MAX_BODY = 64 * 1024;
const logs: string[] = [];

beforeAll(async () => {
  upstream = await startUpstream();
  collector = await startCollector(
    { listen: { host: '127.0.0.1', port: 0 }, maxBodyBytes: MAX_BODY, batch: { intervalMs: 10 }, forward: { endpoint: upstream.url } },
    { createAnnotator: () => annotator, log: (m) => logs.push(m) },
  );
});
afterAll(async () => {
  await collector.close();
  await upstream.close();
});

const traces = (): string => `${collector.url}/v1/traces`;
const post = (body: string | Uint8Array, headers: Record<string, string>): Promise<Response> =>
  fetch(traces(), { method: 'POST', body, headers });

async function expectAlive(): Promise<void> {
  const res = await fetch(`${collector.url}/healthz`);
  expect(res.status).toBe(200);
}

describe('POST /v1/traces', () => {
  it('accepts OTLP/JSON and answers an empty ExportTraceServiceResponse in JSON', async () => {
    const body = jsonRequest(3);
    const res = await post(JSON.stringify(body), { 'content-type': 'application/json' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(decodeTraceResponseJson(await res.text())).toEqual({});
    const traceId = (body as any).resourceSpans[0].scopeSpans[0].spans[0].traceId as string;
    await waitFor(() => spansOf(upstream.accepted).filter((s) => Buffer.from(s.traceId!).toString('hex') === traceId).length === 3);
    const forwarded = spansOf(upstream.accepted).filter((s) => Buffer.from(s.traceId!).toString('hex') === traceId);
    expect(forwarded.map((s) => attr(s, 'test.annotated'))).toEqual([true, true, true]);
    expect(upstream.accepted.at(-1)!.contentType).toBe('application/x-protobuf');
  });

  it('accepts OTLP/protobuf (with a charset parameter) and answers in protobuf', async () => {
    const bytes = encodeTraceRequestProto(decodeTraceRequestJson(JSON.stringify(jsonRequest(2))));
    const res = await post(bytes, { 'content-type': 'application/x-protobuf; charset=binary' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-protobuf');
    expect(decodeTraceResponseProto(new Uint8Array(await res.arrayBuffer()))).toEqual({});
  });

  it('accepts gzip-compressed bodies in both encodings', async () => {
    const request = decodeTraceRequestJson(JSON.stringify(jsonRequest(2)));
    const json = await post(gzipSync(encodeTraceRequestJson(request)), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(json.status).toBe(200);
    const proto = await post(gzipSync(encodeTraceRequestProto(request)), { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' });
    expect(proto.status).toBe(200);
  });

  it('reports spans with invalid ids as a partial success and forwards the rest', async () => {
    const body = jsonRequest(3) as any;
    const spans = body.resourceSpans[0].scopeSpans[0].spans;
    spans[0].traceId = '';
    spans[2].spanId = '0000000000000000';
    const res = await post(JSON.stringify(body), { 'content-type': 'application/json' });
    expect(res.status).toBe(200);
    const answer = decodeTraceResponseJson(await res.text());
    expect(answer.partialSuccess?.rejectedSpans).toBe('2');
    expect(answer.partialSuccess?.errorMessage).toMatch(/spans\[0\]: traceId must be 16 bytes/);
    expect(answer.partialSuccess?.errorMessage).toMatch(/spans\[2\]: spanId must be 8 bytes/);
    const protoRes = await post(encodeTraceRequestProto(decodeTraceRequestJson(JSON.stringify(body))), { 'content-type': 'application/x-protobuf' });
    expect(decodeTraceResponseProto(new Uint8Array(await protoRes.arrayBuffer())).partialSuccess?.rejectedSpans).toBe('2');
  });

  it('answers 400 with a google.rpc.Status for a truncated protobuf body, and keeps serving', async () => {
    const bytes = encodeTraceRequestProto(decodeTraceRequestJson(JSON.stringify(jsonRequest(2))));
    const res = await post(bytes.subarray(0, bytes.length - 7), { 'content-type': 'application/x-protobuf' });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/x-protobuf');
    const status = decodeRpcStatusProto(new Uint8Array(await res.arrayBuffer()));
    expect(status.code).toBe(3);
    expect(status.message).toMatch(/invalid protobuf ExportTraceServiceRequest/);
    await expectAlive();
  });

  it('answers 400 for bodies that are not OTLP at all, and keeps serving', async () => {
    const html = await post('<html><body>hello</body></html>', { 'content-type': 'application/x-protobuf' });
    expect(html.status).toBe(400);
    const notJson = await post('this is not json', { 'content-type': 'application/json' });
    expect(notJson.status).toBe(400);
    expect(decodeRpcStatusJson(await notJson.text()).message).toMatch(/invalid JSON/);
    const wrongShape = await post(JSON.stringify({ resourceSpans: [{ scopeSpans: 'nope' }] }), { 'content-type': 'application/json' });
    expect(wrongShape.status).toBe(400);
    expect(decodeRpcStatusJson(await wrongShape.text()).message).toBe('resourceSpans[0].scopeSpans: expected an array, got the string "nope"');
    // A span-level error refuses that span only (partial success), naming the field.
    const badHex = await post(JSON.stringify(jsonRequest(1, { traceId: 'zz' })), { 'content-type': 'application/json' });
    expect(badHex.status).toBe(200);
    expect(decodeTraceResponseJson(await badHex.text()).partialSuccess).toEqual({
      rejectedSpans: '1',
      errorMessage: '1 span(s) rejected: resourceSpans[0].scopeSpans[0].spans[0]: traceId: expected a hex string, got the string "zz"',
    });
    const badGzip = await post('not gzip', { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(badGzip.status).toBe(400);
    expect(decodeRpcStatusJson(await badGzip.text()).message).toMatch(/invalid gzip body/);
    await expectAlive();
  });

  it('answers 415 for unknown content types and encodings', async () => {
    const text = await post('hello', { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
    expect(decodeRpcStatusJson(await text.text()).message).toMatch(/unsupported Content-Type "text\/plain"/);
    const br = await post('{}', { 'content-type': 'application/json', 'content-encoding': 'br' });
    expect(br.status).toBe(415);
    await expectAlive();
  });

  it('answers 413 from Content-Length before reading the body', async () => {
    const res = await post(Buffer.alloc(MAX_BODY + 1, 0x20), { 'content-type': 'application/json' });
    expect(res.status).toBe(413);
    expect(decodeRpcStatusJson(await res.text()).message).toMatch(/exceeds the limit of 65536 bytes/);
    await expectAlive();
  });

  it('answers 413 for a chunked upload that grows past the limit', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(traces(), { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      const chunk = Buffer.alloc(16 * 1024, 0x20);
      for (let i = 0; i < 8; i++) req.write(chunk);
      req.end();
    });
    expect(status).toBe(413);
    await expectAlive();
  });

  it('answers 413 for a gzip bomb without inflating it', async () => {
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(MAX_BODY);
    const res = await post(bomb, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(res.status).toBe(413);
    expect(decodeRpcStatusJson(await res.text()).message).toMatch(/decompressed request body exceeds/);
    await expectAlive();
  });

  it('answers 405 for other methods, with Allow', async () => {
    const res = await fetch(traces());
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    const metrics = await fetch(`${collector.url}/metrics`, { method: 'POST', body: 'x' });
    expect(metrics.status).toBe(405);
    await expectAlive();
  });

  it('answers 404 for unknown paths', async () => {
    const res = await fetch(`${collector.url}/v1/logs`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toMatch(/no such endpoint/);
  });
});

describe('GET /v1/runs/{key}', () => {
  it('returns the verdict for a known run and 404 with a JSON message otherwise', async () => {
    const body = jsonRequest(2) as any;
    const traceId = body.resourceSpans[0].scopeSpans[0].spans[0].traceId as string;
    await post(JSON.stringify(body), { 'content-type': 'application/json' });
    const known = await fetch(`${collector.url}/v1/runs/${traceId.toUpperCase().toLowerCase()}`);
    expect(known.status).toBe(200);
    expect(await known.json()).toEqual({ runKey: traceId, spans: 2 });
    const unknown = await fetch(`${collector.url}/v1/runs/${encodeURIComponent('conv 42/ä')}`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: 'unknown run: conv 42/ä', runKey: 'conv 42/ä' });
  });
});

describe('after all of the above', () => {
  it('logged no internal error: every bad request got its intended answer', () => {
    expect(logs.filter((l) => l.includes('internal error'))).toEqual([]);
  });
});
