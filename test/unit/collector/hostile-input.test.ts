import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCollector } from '../../../src/collector/index.js';
import type { RunningCollector, SpanAnnotator } from '../../../src/collector/index.js';
import type { SpanShape } from '../../../src/span-shape.js';
import { hexId, jsonRequest, ld, nestedKvlistJson, nestedKvlistProto, protoAttribute, protoRequest, protoSpansRequest, startUpstream, varint } from './helpers.js';
import type { Upstream } from './helpers.js';

/**
 * Requests an attacker or a broken SDK might send, against the real server
 * with small, known byte limits. Every one must get a 2xx or 4xx answer (or
 * have its connection closed), never a 500; the server must stay up and its
 * memory must stay within what the limits allow.
 */

const MAX_BODY = 1024 * 1024;
/** Reads every attribute, as detection does, so hostile values reach the annotator too. */
const reading: SpanAnnotator = {
  onStart() {},
  onEnd(span: SpanShape) {
    void span.attributes;
  },
  verdict: () => undefined,
};
let upstream: Upstream;
let collector: RunningCollector;

beforeAll(async () => {
  upstream = await startUpstream();
  collector = await startCollector(
    {
      listen: { host: '127.0.0.1', port: 0 },
      maxBodyBytes: MAX_BODY,
      queue: { maxBytes: 4 * MAX_BODY },
      limits: { maxInFlightBytes: 4 * MAX_BODY },
      server: { idleTimeoutMs: 500, headersTimeoutMs: 500, requestTimeoutMs: 2000 },
      batch: { intervalMs: 10 },
      forward: { endpoint: upstream.url },
    },
    { createAnnotator: () => reading, log: () => {} },
  );
});
afterAll(async () => {
  await collector.close();
  await upstream.close();
});

const JSON_TYPE = 'application/json';
const PROTO_TYPE = 'application/x-protobuf';
const ids = (): string => `"traceId":"${hexId(16)}","spanId":"${hexId(8)}"`;
const jsonSpans = (...spans: string[]): string => `{"resourceSpans":[{"scopeSpans":[{"spans":[${spans.join(',')}]}]}]}`;
const jsonValue = (value: string): string => jsonSpans(`{${ids()},"name":"s","attributes":[{"key":"a","value":${value}}]}`);

interface Case {
  name: string;
  body: () => string | Uint8Array;
  contentType?: string;
  headers?: Record<string, string>;
  method?: string;
  path?: string;
  /** Statuses this case may get; default any 2xx/4xx but 500. */
  expect?: number[];
}

const cases: Case[] = [
  // OTLP/JSON
  { name: 'JSON kvlist 1,000 deep', body: () => jsonValue(nestedKvlistJson(1000)), expect: [200] },
  { name: 'JSON kvlist 100,000 deep', body: () => jsonValue(nestedKvlistJson(100_000)), expect: [200, 413] },
  { name: 'JSON arrayValue 50,000 deep', body: () => jsonValue('{"arrayValue":{"values":['.repeat(50_000) + '{"stringValue":"x"}' + ']}}'.repeat(50_000)), expect: [200, 413] },
  { name: 'JSON plain arrays 200,000 deep', body: () => '['.repeat(200_000) + ']'.repeat(200_000), expect: [400] },
  { name: 'intValue 1e21', body: () => jsonValue('{"intValue":1e21}'), expect: [200] },
  { name: 'intValue "99999999999999999999999"', body: () => jsonValue('{"intValue":"99999999999999999999999"}'), expect: [200] },
  { name: 'intValue -1e300', body: () => jsonValue('{"intValue":-1e300}'), expect: [200] },
  { name: 'intValue 1.5', body: () => jsonValue('{"intValue":1.5}'), expect: [200] },
  { name: 'intValue true', body: () => jsonValue('{"intValue":true}'), expect: [200] },
  { name: 'intValue with 5,000 digits', body: () => jsonValue(`{"intValue":"${'9'.repeat(5000)}"}`), expect: [200] },
  { name: 'doubleValue "abc"', body: () => jsonValue('{"doubleValue":"abc"}'), expect: [200] },
  { name: 'bytesValue not base64', body: () => jsonValue('{"bytesValue":"***"}'), expect: [200] },
  { name: 'traceId not hex', body: () => jsonSpans(`{"traceId":"zz","spanId":"${hexId(8)}"}`), expect: [200] },
  { name: 'traceId of 17 bytes', body: () => jsonSpans(`{"traceId":"${hexId(16)}ab","spanId":"${hexId(8)}"}`), expect: [200] },
  { name: 'spanId of odd length', body: () => jsonSpans(`{"traceId":"${hexId(16)}","spanId":"abc"}`), expect: [200] },
  { name: 'kind as an unknown name', body: () => jsonSpans(`{${ids()},"kind":"NOT_A_KIND"}`), expect: [200] },
  { name: 'kind 1e10', body: () => jsonSpans(`{${ids()},"kind":1e10}`), expect: [200] },
  { name: 'negative fixed64 time', body: () => jsonSpans(`{${ids()},"startTimeUnixNano":"-5"}`), expect: [200] },
  { name: 'time in exponent notation', body: () => jsonSpans(`{${ids()},"startTimeUnixNano":"1e5"}`), expect: [200] },
  { name: 'flags -1', body: () => jsonSpans(`{${ids()},"flags":-1}`), expect: [200] },
  { name: 'status.code 99', body: () => jsonSpans(`{${ids()},"status":{"code":99}}`), expect: [200] },
  { name: 'events as a string', body: () => jsonSpans(`{${ids()},"events":"x"}`), expect: [200] },
  { name: 'resourceSpans a string', body: () => '{"resourceSpans":"x"}', expect: [400] },
  { name: 'resourceSpans null', body: () => '{"resourceSpans":null}', expect: [200] },
  { name: 'body null', body: () => 'null', expect: [400] },
  { name: 'body an array', body: () => '[]', expect: [400] },
  { name: 'body a string', body: () => '"x"', expect: [400] },
  { name: 'truncated JSON', body: () => JSON.stringify(jsonRequest(3)).slice(0, 50), expect: [400] },
  { name: 'empty JSON body', body: () => '', expect: [400] },
  { name: '__proto__ keys', body: () => `{"__proto__":{"resourceSpans":[]},"resourceSpans":[{"__proto__":{"x":1},"scopeSpans":[{"spans":[{${ids()},"__proto__":{"name":"p"}}]}]}]}`, expect: [200] },
  { name: 'invalid UTF-8 in JSON', body: () => Buffer.concat([Buffer.from(jsonSpans(`{${ids()},"name":"`)), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}]}]}]}')]), expect: [200, 400] },
  { name: 'byte-order mark', body: () => `\uFEFF${JSON.stringify(jsonRequest(1))}`, expect: [200] },
  { name: '500 KB attribute value', body: () => jsonValue(`{"stringValue":"${'x'.repeat(500_000)}"}`), expect: [200] },
  { name: '20,000 attributes on one span', body: () => jsonSpans(`{${ids()},"attributes":[${Array.from({ length: 20_000 }, (_, i) => `{"key":"k${i}","value":{"intValue":${i}}}`).join(',')}]}`), expect: [200] },
  { name: '20,000 spans without ids', body: () => jsonSpans(...Array.from({ length: 20_000 }, () => '{}')), expect: [200] },
  { name: '20,000 copies of one attribute key', body: () => jsonSpans(`{${ids()},"attributes":[${Array.from({ length: 20_000 }, () => '{"key":"same","value":{"stringValue":"v"}}').join(',')}]}`), expect: [200] },
  // OTLP/protobuf
  { name: 'one span with 60,000 attributes (protobuf)', contentType: PROTO_TYPE, body: () => protoSpansRequest(Buffer.concat(Array.from({ length: 60_000 }, (_, i) => protoAttribute(`k${i}`, ld(1, Buffer.from('v')))))), expect: [200] },
  { name: 'random bytes', contentType: PROTO_TYPE, body: () => Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 2654435761) % 251)), expect: [200, 400] },
  { name: 'truncated protobuf', contentType: PROTO_TYPE, body: () => protoRequest(jsonRequest(5)).subarray(0, 100), expect: [400] },
  { name: 'wrong wire type at the request level', contentType: PROTO_TYPE, body: () => Buffer.concat([varint(8), varint(1)]), expect: [400] },
  { name: 'wrong wire type in a span', contentType: PROTO_TYPE, body: () => protoSpansRequest(Buffer.concat([varint(5 * 8), varint(1)])), expect: [200] },
  { name: 'protobuf AnyValue 10,000 deep', contentType: PROTO_TYPE, body: () => protoSpansRequest(protoAttribute('a', nestedKvlistProto(10_000))), expect: [200] },
  { name: 'varint of 11 bytes', contentType: PROTO_TYPE, body: () => protoSpansRequest(Buffer.concat([varint(6 * 8), Buffer.alloc(10, 0xff), Buffer.from([1])])), expect: [200] },
  { name: 'length past the end', contentType: PROTO_TYPE, body: () => Buffer.concat([varint(10), varint(1000), Buffer.alloc(10)]), expect: [400] },
  { name: 'length 2^32 - 1', contentType: PROTO_TYPE, body: () => Buffer.concat([varint(10), varint(0xffffffff)]), expect: [400] },
  { name: 'field number 0', contentType: PROTO_TYPE, body: () => Buffer.from([0x02, 0x00]), expect: [400] },
  { name: 'group wire type', contentType: PROTO_TYPE, body: () => Buffer.from([0x0b, 0x0c]), expect: [400] },
  { name: 'unknown fields everywhere', contentType: PROTO_TYPE, body: () => Buffer.concat([ld(99, Buffer.from('junk')), protoSpansRequest(ld(77, Buffer.from('x')))]), expect: [200] },
  { name: '10,000 empty resourceSpans', contentType: PROTO_TYPE, body: () => Buffer.concat(Array.from({ length: 10_000 }, () => ld(1, Buffer.alloc(0)))), expect: [200] },
  // HTTP
  { name: 'gzip bomb', headers: { 'content-encoding': 'gzip' }, body: () => gzipSync(Buffer.alloc(64 * MAX_BODY)), expect: [413] },
  { name: 'invalid gzip', headers: { 'content-encoding': 'gzip' }, body: () => 'not gzip', expect: [400] },
  { name: 'unsupported encoding', headers: { 'content-encoding': 'br' }, body: () => '{}', expect: [415] },
  { name: 'text/plain', contentType: 'text/plain', body: () => '{}', expect: [415] },
  { name: 'body over maxBodyBytes', body: () => 'x'.repeat(MAX_BODY + 1), expect: [413] },
  { name: 'GET /v1/traces', method: 'GET', body: () => '', expect: [405] },
  { name: 'bad percent-encoding in a run key', method: 'GET', path: '/v1/runs/%E0%A4%A', body: () => '', expect: [400] },
  { name: 'run key of 8 KB', method: 'GET', path: `/v1/runs/${'k'.repeat(8000)}`, body: () => '', expect: [404] },
];

async function send(c: Case): Promise<number> {
  const method = c.method ?? 'POST';
  const res = await fetch(`${collector.url}${c.path ?? '/v1/traces'}`, {
    method,
    ...(method === 'POST' ? { body: c.body() } : {}),
    headers: { 'content-type': c.contentType ?? JSON_TYPE, ...c.headers },
  });
  await res.arrayBuffer();
  return res.status;
}

/** Sends raw bytes on a fresh connection and resolves with the status line's code, or 0 when the server closed without one. */
function sendRaw(text: string, trickle?: { bytes: number; everyMs: number }): Promise<number> {
  const url = new URL(collector.url);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    let data = '';
    let timer: NodeJS.Timeout | undefined;
    socket.on('data', (d: Buffer) => (data += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0));
    });
    socket.write(text);
    if (trickle) {
      let sent = 0;
      timer = setInterval(() => {
        if (sent++ < trickle.bytes) socket.write('x');
      }, trickle.everyMs);
    }
  });
}

const rawCases: { name: string; run: () => Promise<number>; expect: number[] }[] = [
  { name: 'Content-Length larger than the body', run: () => sendRaw(`POST /v1/traces HTTP/1.1\r\nhost: x\r\ncontent-type: ${JSON_TYPE}\r\ncontent-length: 5000\r\n\r\n{}`), expect: [0, 408] },
  { name: 'headers that never end', run: () => sendRaw('POST /v1/traces HTTP/1.1\r\nhost: x\r\n'), expect: [0, 408] },
  { name: 'Content-Length not a number', run: () => sendRaw('POST /v1/traces HTTP/1.1\r\nhost: x\r\ncontent-length: abc\r\n\r\n'), expect: [400] },
  { name: 'body trickled a byte every 20 ms', run: () => sendRaw(`POST /v1/traces HTTP/1.1\r\nhost: x\r\ncontent-type: ${JSON_TYPE}\r\ncontent-length: 100000\r\n\r\n`, { bytes: 100_000, everyMs: 20 }), expect: [0, 408] },
  {
    name: 'chunked body of 5,000 one-byte chunks',
    run: () => {
      const body = JSON.stringify(jsonRequest(1)).padEnd(5000, ' ');
      const chunks = [...body].map((ch) => `1\r\n${ch}\r\n`).join('');
      return sendRaw(`POST /v1/traces HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-type: ${JSON_TYPE}\r\ntransfer-encoding: chunked\r\n\r\n${chunks}0\r\n\r\n`);
    },
    expect: [200],
  },
  { name: 'header block over 16 KB', run: () => sendRaw(`GET /healthz HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`), expect: [431, 0] },
];

describe('hostile input: never a 500, never a crash, memory bounded', () => {
  const rssBefore = process.memoryUsage().rss;

  for (const c of cases) {
    it(`${c.name}`, async () => {
      const status = await send(c);
      expect(status).not.toBe(500);
      if (c.expect) expect(c.expect).toContain(status);
    });
  }

  for (const c of rawCases) {
    it(`${c.name} (raw)`, async () => {
      const status = await c.run();
      expect(status).not.toBe(500);
      expect(c.expect).toContain(status);
    });
  }

  it('is still serving, and the process grew by less than the configured byte limits allow', async () => {
    expect((await fetch(`${collector.url}/healthz`)).status).toBe(200);
    expect(cases.length + rawCases.length).toBeGreaterThanOrEqual(40);
    // Body, in-flight and queue limits are 1 + 4 + 4 MiB; decoded objects cost a multiple of
    // their bytes, and the test process holds its own payloads too: 256 MiB is far below an unbounded run.
    global.gc?.();
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(256 * 1024 * 1024);
  });
});
