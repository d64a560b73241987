/**
 * Reads a Node process's memory after a full garbage collection through its
 * inspector (`node --inspect=127.0.0.1:PORT`), the way Chrome DevTools does:
 * `HeapProfiler.collectGarbage`, then `process.memoryUsage()` evaluated in
 * the process. The DevTools protocol speaks WebSocket; Node 20 has no
 * WebSocket client without a flag, so this holds the few lines of RFC 6455 a
 * text-only, client-side, unfragmented exchange needs.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import type { Socket } from 'node:net';
import { getJson } from './wait.js';

export interface MemoryAfterGc {
  /** V8 heap in use after the collection (bytes). */
  heapUsed: number;
  heapTotal: number;
  /** ArrayBuffers and Buffers outside the V8 heap (bytes). */
  arrayBuffers: number;
  external: number;
  rss: number;
}

interface InspectorTarget {
  webSocketDebuggerUrl: string;
}

/** One masked, final text frame (clients must mask, RFC 6455 §5.3). */
function textFrame(text: string): Buffer {
  const payload = Buffer.from(text, 'utf8');
  const mask = randomBytes(4);
  const length = payload.length;
  const extended = length < 126 ? 0 : length < 65_536 ? 2 : 8;
  const header = Buffer.alloc(2 + extended);
  header[0] = 0x81;
  header[1] = 0x80 | (extended === 0 ? length : extended === 2 ? 126 : 127);
  if (extended === 2) header.writeUInt16BE(length, 2);
  else if (extended === 8) header.writeBigUInt64BE(BigInt(length), 2);
  const masked = Buffer.alloc(length);
  for (let i = 0; i < length; i++) masked[i] = payload[i]! ^ mask[i % 4]!;
  return Buffer.concat([header, mask, masked]);
}

/** Splits complete server frames (unmasked) off the front of `buffer`. */
function readFrames(buffer: Buffer): { messages: string[]; rest: Buffer } {
  const messages: string[] = [];
  let offset = 0;
  for (;;) {
    if (buffer.length - offset < 2) break;
    const opcode = buffer[offset]! & 0x0f;
    let length = buffer[offset + 1]! & 0x7f;
    let start = offset + 2;
    if (length === 126) {
      if (buffer.length - offset < 4) break;
      length = buffer.readUInt16BE(offset + 2);
      start = offset + 4;
    } else if (length === 127) {
      if (buffer.length - offset < 10) break;
      length = Number(buffer.readBigUInt64BE(offset + 2));
      start = offset + 10;
    }
    if (buffer.length < start + length) break;
    if (opcode === 0x1) messages.push(buffer.subarray(start, start + length).toString('utf8'));
    offset = start + length;
  }
  return { messages, rest: buffer.subarray(offset) };
}

function connect(url: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const req = request(url.replace(/^ws:/, 'http:'), {
      headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': randomBytes(16).toString('base64') },
    });
    req.once('upgrade', (_res, socket) => resolve(socket));
    req.once('response', (res) => reject(new Error(`inspector ${url} answered ${res.statusCode} instead of switching to WebSocket`)));
    req.once('error', reject);
    req.end();
  });
}

/**
 * Forces a full GC in the process whose inspector listens on `port` and
 * returns its memory right after it.
 */
export async function memoryAfterGc(port: number, timeoutMs = 30_000): Promise<MemoryAfterGc> {
  const [target] = await getJson<InspectorTarget[]>(`http://127.0.0.1:${port}/json/list`);
  if (!target) throw new Error(`inspector on port ${port} lists no target`);
  const socket = await connect(target.webSocketDebuggerUrl);
  try {
    const replies = new Map<number, (result: unknown) => void>();
    let pending: Buffer = Buffer.alloc(0);
    let failure: Error | undefined;
    socket.on('data', (chunk: Buffer) => {
      const { messages, rest } = readFrames(Buffer.concat([pending, chunk]));
      pending = rest;
      for (const text of messages) {
        const message = JSON.parse(text) as { id?: number; result?: unknown; error?: { message: string } };
        if (message.id === undefined) continue;
        if (message.error) failure = new Error(`inspector: ${message.error.message}`);
        replies.get(message.id)?.(message.result);
      }
    });
    let nextId = 1;
    const call = (method: string, params: Record<string, unknown> = {}): Promise<unknown> =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        const timer = setTimeout(() => reject(new Error(`inspector: ${method} got no answer within ${timeoutMs} ms`)), timeoutMs);
        replies.set(id, (result) => {
          clearTimeout(timer);
          if (failure) reject(failure);
          else resolve(result);
        });
        socket.write(textFrame(JSON.stringify({ id, method, params })));
      });
    await call('HeapProfiler.collectGarbage');
    const evaluated = (await call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true })) as {
      result: { value: string };
    };
    return JSON.parse(evaluated.result.value) as MemoryAfterGc;
  } finally {
    socket.destroy();
  }
}
