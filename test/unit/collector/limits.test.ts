import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startCollector } from '../../../src/collector/index.js';
import type { RunningCollector, SpanAnnotator } from '../../../src/collector/index.js';
import { jsonRequest, protoRequest, spansOf, startUpstream, waitFor } from './helpers.js';
import type { Upstream } from './helpers.js';

const annotator: SpanAnnotator = { onStart() {}, onEnd() {}, verdict: () => undefined };
let upstream: Upstream | undefined;
let collector: RunningCollector | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await collector?.close();
  await upstream?.close();
  collector = undefined;
  upstream = undefined;
});

async function start(config: Parameters<typeof startCollector>[0]): Promise<RunningCollector> {
  collector = await startCollector({ listen: { host: '127.0.0.1', port: 0 }, shutdown: { timeoutMs: 100 }, ...config }, { createAnnotator: () => annotator, log: () => {} });
  return collector;
}

/** A raw connection to the collector, for requests no HTTP client would send. */
function rawConnection(): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const url = new URL(collector!.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    sockets.push(socket);
    let data = '';
    socket.on('data', (d: Buffer) => (data += d.toString('latin1')));
    socket.on('error', () => {});
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.once('connect', () => resolve({ socket, received: () => data, closed }));
    socket.once('error', reject);
  });
}

function statusOf(response: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1]);
}

/** Holds the forward endpoint's answers until released, so the queue fills. */
function stallUpstream(up: Upstream): () => void {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  up.respond = async () => {
    await released;
    return true;
  };
  return release;
}

describe('backpressure is decided before the body is read', () => {
  it('answers 503 + Retry-After to a request whose body has not even been sent, when the queue is full', async () => {
    upstream = await startUpstream();
    const release = stallUpstream(upstream);
    await start({ forward: { endpoint: upstream.url }, queue: { maxSpans: 20, retryAfterSeconds: 4 }, batch: { maxSpans: 10, intervalMs: 0 } });
    const post = (n: number): Promise<Response> =>
      fetch(`${collector!.url}/v1/traces`, { method: 'POST', body: JSON.stringify(jsonRequest(n)), headers: { 'content-type': 'application/json' } });
    expect((await post(10)).status).toBe(200);
    await waitFor(() => upstream!.requests.length === 1);
    expect((await post(10)).status).toBe(200); // the queue now holds 20 spans: full
    const { socket, received } = await rawConnection();
    socket.write('POST /v1/traces HTTP/1.1\r\nhost: x\r\ncontent-type: application/x-protobuf\r\ncontent-length: 10000000\r\n\r\n');
    await waitFor(() => received().includes('\r\n\r\n'), 5000, 'an answer without a body sent');
    expect(statusOf(received())).toBe(503);
    expect(received().toLowerCase()).toContain('retry-after: 4');
    release();
  });

  it('counts the queue in bytes: a few large spans fill queue.maxBytes', async () => {
    upstream = await startUpstream();
    const release = stallUpstream(upstream);
    await start({ forward: { endpoint: upstream.url }, queue: { maxBytes: 64 * 1024 }, batch: { intervalMs: 0 } });
    const big = (): Promise<Response> =>
      fetch(`${collector!.url}/v1/traces`, {
        method: 'POST',
        body: protoRequest(jsonRequest(1, { name: 'x'.repeat(40 * 1024) })),
        headers: { 'content-type': 'application/x-protobuf' },
      });
    expect((await big()).status).toBe(200); // an empty queue takes anything
    await waitFor(() => upstream!.requests.length === 1);
    const refused = await big(); // 40 KiB queued + 40 KiB declared > 64 KiB, though only 2 spans
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('2');
    release();
    await waitFor(() => spansOf(upstream!.accepted).length === 1);
  });

  it('counts requests already admitted (bodies still arriving) against queue.maxBytes, so none is refused after detection', async () => {
    upstream = await startUpstream();
    const release = stallUpstream(upstream);
    await start({ forward: { endpoint: upstream.url }, queue: { maxBytes: 64 * 1024 }, batch: { intervalMs: 0 } });
    const body = Buffer.from(protoRequest(jsonRequest(1, { name: 'x'.repeat(40 * 1024) })));
    // A first request is admitted on its headers; its body is still on the way.
    const first = await rawConnection();
    first.socket.write(`POST /v1/traces HTTP/1.1\r\nhost: x\r\ncontent-type: application/x-protobuf\r\ncontent-length: ${body.length}\r\n\r\n`);
    first.socket.write(body.subarray(0, 100));
    await new Promise((r) => setTimeout(r, 50));
    // 40 KiB admitted + 40 KiB declared > 64 KiB: refused now, though the queue itself is empty.
    const second = await fetch(`${collector!.url}/v1/traces`, { method: 'POST', body, headers: { 'content-type': 'application/x-protobuf' } });
    expect(second.status).toBe(503);
    first.socket.write(body.subarray(100));
    await waitFor(() => first.received().includes('\r\n\r\n'), 5000, 'the first answer');
    expect(statusOf(first.received())).toBe(200);
    release();
  });

  it('answers 429 + Retry-After when the bodies in flight would exceed limits.maxInFlightBytes', async () => {
    await start({ limits: { maxInFlightBytes: 100_000 } });
    const first = await rawConnection();
    first.socket.write('POST /v1/traces HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 80000\r\n\r\n{');
    await new Promise((r) => setTimeout(r, 50));
    const second = await fetch(`${collector!.url}/v1/traces`, { method: 'POST', body: 'x'.repeat(30_000), headers: { 'content-type': 'application/json' } });
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('2');
    first.socket.destroy();
    // The reservation is released with its request: a small request fits again.
    await new Promise((r) => setTimeout(r, 50));
    const body = JSON.stringify(jsonRequest(1, { name: 'x'.repeat(30_000) }));
    const third = await fetch(`${collector!.url}/v1/traces`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(third.status).toBe(200);
  });
});

describe('timeouts and the connection cap', () => {
  it('closes a connection whose headers never finish (server.headersTimeoutMs)', async () => {
    await start({ server: { headersTimeoutMs: 300 } });
    const { socket, closed, received } = await rawConnection();
    socket.write('POST /v1/traces HTTP/1.1\r\nhost: x\r\n');
    await closed;
    expect([0, 408]).toContain(statusOf(received()) || 0);
  });

  it('closes a connection whose body stops short of its Content-Length (server.idleTimeoutMs)', async () => {
    await start({ server: { idleTimeoutMs: 300 } });
    const { socket, closed } = await rawConnection();
    socket.write('POST /v1/traces HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"resourceSpans":');
    await closed;
  });

  it('closes a body trickled too slowly to finish within server.requestTimeoutMs', async () => {
    await start({ server: { requestTimeoutMs: 500, idleTimeoutMs: 10_000 } });
    const { socket, closed, received } = await rawConnection();
    socket.write('POST /v1/traces HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n');
    const timer = setInterval(() => socket.write(' '), 50);
    await closed;
    clearInterval(timer);
    expect(statusOf(received())).toBe(408);
  });

  it('refuses connections beyond server.maxConnections', async () => {
    await start({ server: { maxConnections: 2 } });
    const open = [await rawConnection(), await rawConnection()];
    await new Promise((r) => setTimeout(r, 50));
    const third = await rawConnection();
    await third.closed; // closed by the server at once
    for (const c of open) c.socket.destroy();
    await new Promise((r) => setTimeout(r, 50));
    expect((await fetch(`${collector!.url}/healthz`)).status).toBe(200);
  });
});
