import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { OtlpResourceSpans, OtlpTraceRequest, OtlpTraceResponse } from './otlp-model.js';
import { decodeTraceResponseJson, encodeTraceRequestJson } from './otlp-json.js';
import { decodeTraceResponseProto, encodeTraceRequestProto } from './otlp-protobuf.js';

const gzip = promisify(gzipCallback);

export type ForwardProtocol = 'http/protobuf' | 'http/json';
export type ForwardCompression = 'none' | 'gzip';

export interface RetryOptions {
  /** First backoff delay; doubles per attempt up to `maxBackoffMs`. */
  initialBackoffMs: number;
  maxBackoffMs: number;
  /** Attempts per batch, first one included; 0 retries transient failures until they succeed or the drain times out. */
  maxAttempts: number;
}

export interface ForwarderOptions {
  /** Full OTLP/HTTP traces URL. Without one, spans are analysed and then discarded. */
  endpoint: string | undefined;
  protocol: ForwardProtocol;
  compression: ForwardCompression;
  headers: Record<string, string>;
  timeoutMs: number;
  maxQueueSpans: number;
  maxBatchSpans: number;
  /** Longest a span waits for its batch to fill before the batch is sent anyway. */
  batchIntervalMs: number;
  retry: RetryOptions;
  onForwarded: (spans: number) => void;
  onDropped: (spans: number, reason: string) => void;
  log: (message: string) => void;
}

interface QueuedChunk {
  resourceSpans: OtlpResourceSpans[];
  spans: number;
  enqueuedAt: number;
}

/** HTTP statuses the OTLP specification lists as retryable. */
const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
/** Upper bound on a server-requested Retry-After, so one bad header cannot park the queue for hours. */
const MAX_RETRY_AFTER_MS = 5 * 60_000;

class StoppedError extends Error {}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new StoppedError('stopped'));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new StoppedError('stopped'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Retry-After as seconds or an HTTP date (RFC 9110 §10.2.3), in milliseconds. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Math.min(Number(trimmed) * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.min(Math.max(0, date - now), MAX_RETRY_AFTER_MS);
}

/**
 * Splits a request into chunks of at most `max` spans, keeping each span under
 * its own resource and scope, so batches honour the configured size even when
 * one request is larger than a batch.
 */
export function splitIntoChunks(request: OtlpTraceRequest, max: number): { resourceSpans: OtlpResourceSpans[]; spans: number }[] {
  const chunks: { resourceSpans: OtlpResourceSpans[]; spans: number }[] = [];
  let current: OtlpResourceSpans[] = [];
  let count = 0;
  const flush = (): void => {
    if (count > 0) chunks.push({ resourceSpans: current, spans: count });
    current = [];
    count = 0;
  };
  for (const rs of request.resourceSpans ?? []) {
    for (const ss of rs.scopeSpans ?? []) {
      const spans = ss.spans ?? [];
      let offset = 0;
      while (offset < spans.length) {
        const take = Math.min(max - count, spans.length - offset);
        const slice = spans.slice(offset, offset + take);
        offset += take;
        let target = current.at(-1);
        if (!target || target.resource !== rs.resource || target.schemaUrl !== rs.schemaUrl) {
          target = { ...rs, scopeSpans: [] };
          current.push(target);
        }
        target.scopeSpans!.push({ ...ss, spans: slice });
        count += take;
        if (count >= max) flush();
      }
    }
  }
  flush();
  return chunks;
}

/**
 * The bounded queue between the receiver and the forward endpoint. One batch is
 * in flight at a time, so spans leave in the order they arrived. Transient
 * failures (429/502/503/504, connection errors, timeouts) are retried with
 * exponential backoff, honouring Retry-After; a batch leaves the queue only
 * when acknowledged, refused for good, or out of attempts.
 */
export class Forwarder {
  private readonly queue: QueuedChunk[] = [];
  private queued = 0;
  private running = false;
  private draining = false;
  private readonly stop = new AbortController();
  private wake: (() => void) | undefined;
  private idle: Promise<void> = Promise.resolve();

  constructor(private readonly options: ForwarderOptions) {}

  get queuedSpans(): number {
    return this.queued;
  }

  get enabled(): boolean {
    return this.options.endpoint !== undefined;
  }

  /**
   * Whether `spans` more fit. An empty queue takes any request, so a request
   * bigger than the whole queue is not refused forever.
   */
  canAccept(spans: number): boolean {
    return !this.enabled || this.queued === 0 || this.queued + spans <= this.options.maxQueueSpans;
  }

  enqueue(request: OtlpTraceRequest): void {
    if (!this.enabled || this.stop.signal.aborted) return;
    const now = Date.now();
    for (const chunk of splitIntoChunks(request, this.options.maxBatchSpans)) {
      this.queue.push({ ...chunk, enqueuedAt: now });
      this.queued += chunk.spans;
    }
    if (this.queued >= this.options.maxBatchSpans) this.wake?.();
    this.start();
  }

  /**
   * Sends everything still queued, without waiting for batches to fill, for at
   * most `timeoutMs`; what is left then is dropped and counted.
   */
  async drain(timeoutMs: number): Promise<void> {
    this.draining = true;
    this.wake?.();
    this.start();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const result = await Promise.race([this.idle.then(() => 'done' as const), deadline]);
    clearTimeout(timer);
    if (result === 'timeout') {
      this.stop.abort();
      await this.idle;
    }
    this.stop.abort();
    if (this.queued > 0) {
      this.options.onDropped(this.queued, 'drain timed out');
      this.options.log(`dropped ${this.queued} queued spans: drain timed out after ${timeoutMs} ms`);
      this.queue.length = 0;
      this.queued = 0;
    }
  }

  private start(): void {
    if (this.running || this.queue.length === 0) return;
    this.running = true;
    this.idle = this.run().finally(() => {
      this.running = false;
    });
  }

  private async run(): Promise<void> {
    while (this.queue.length > 0 && !this.stop.signal.aborted) {
      await this.waitForBatch();
      const batch = this.takeBatch();
      try {
        await this.sendWithRetry(batch);
      } catch (err) {
        if (err instanceof StoppedError) return;
        // A bug, not an outage: the batch is counted as dropped (in sendWithRetry) and the queue keeps moving.
        this.options.log(`forwarding a batch failed unexpectedly: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      }
    }
  }

  private waitForBatch(): Promise<void> {
    const oldest = this.queue[0];
    if (this.draining || !oldest || this.queued >= this.options.maxBatchSpans) return Promise.resolve();
    const wait = oldest.enqueuedAt + this.options.batchIntervalMs - Date.now();
    if (wait <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, wait);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = undefined;
        done();
      };
    });
  }

  private takeBatch(): QueuedChunk[] {
    const batch: QueuedChunk[] = [];
    let spans = 0;
    while (this.queue.length > 0) {
      const next = this.queue[0]!;
      if (batch.length > 0 && spans + next.spans > this.options.maxBatchSpans) break;
      batch.push(next);
      spans += next.spans;
      this.queue.shift();
    }
    return batch;
  }

  private async sendWithRetry(batch: QueuedChunk[]): Promise<void> {
    const spans = batch.reduce((n, c) => n + c.spans, 0);
    const { initialBackoffMs, maxBackoffMs, maxAttempts } = this.options.retry;
    try {
      const body = await this.encode({ resourceSpans: batch.flatMap((c) => c.resourceSpans) });
      for (let attempt = 1; ; attempt++) {
        const result = await this.post(body);
        if (result.kind === 'ok') {
          const rejected = Math.min(spans, result.rejected);
          if (rejected > 0) {
            this.options.onDropped(rejected, 'rejected by forward endpoint');
            this.options.log(`forward endpoint rejected ${rejected} of ${spans} spans: ${result.message}`);
          }
          this.options.onForwarded(spans - rejected);
          return;
        }
        if (result.kind === 'fatal' || (maxAttempts > 0 && attempt >= maxAttempts)) {
          const why = result.kind === 'fatal' ? result.message : `${result.message}; gave up after ${attempt} attempts`;
          this.options.onDropped(spans, why);
          this.options.log(`dropped ${spans} spans: ${why}`);
          return;
        }
        const backoff = Math.min(maxBackoffMs, initialBackoffMs * 2 ** (attempt - 1)) * (0.8 + Math.random() * 0.4);
        const delay = result.retryAfterMs ?? backoff;
        this.options.log(`forward attempt ${attempt} failed (${result.message}); retrying in ${Math.round(delay)} ms`);
        await sleep(delay, this.stop.signal);
      }
    } catch (err) {
      if (err instanceof StoppedError) {
        this.options.onDropped(spans, 'drain timed out');
        this.options.log(`dropped ${spans} in-flight spans: drain timed out`);
      } else {
        this.options.onDropped(spans, 'internal error');
      }
      throw err;
    } finally {
      this.queued -= spans;
    }
  }

  private async encode(request: OtlpTraceRequest): Promise<Uint8Array> {
    const raw = this.options.protocol === 'http/json' ? Buffer.from(encodeTraceRequestJson(request)) : encodeTraceRequestProto(request);
    return this.options.compression === 'gzip' ? gzip(raw) : raw;
  }

  private async post(
    body: Uint8Array,
  ): Promise<
    | { kind: 'ok'; rejected: number; message: string }
    | { kind: 'retry'; message: string; retryAfterMs?: number }
    | { kind: 'fatal'; message: string }
  > {
    const { protocol, compression, headers, timeoutMs, endpoint } = this.options;
    const contentType = protocol === 'http/json' ? 'application/json' : 'application/x-protobuf';
    let response: Response;
    try {
      response = await fetch(endpoint!, {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': contentType,
          ...(compression === 'gzip' ? { 'content-encoding': 'gzip' } : {}),
        },
        body,
        signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), this.stop.signal]),
      });
    } catch (err) {
      if (this.stop.signal.aborted) throw new StoppedError('stopped');
      const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
      return { kind: 'retry', message: `${err instanceof Error ? err.message : String(err)}${cause}` };
    }
    const text = Buffer.from(await response.arrayBuffer().catch(() => new ArrayBuffer(0)));
    if (response.ok) {
      const partial = this.readPartialSuccess(text, response.headers.get('content-type'));
      return { kind: 'ok', rejected: Number(partial?.rejectedSpans ?? 0), message: partial?.errorMessage ?? '' };
    }
    const message = `HTTP ${response.status}`;
    if (RETRYABLE_STATUS.has(response.status)) {
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
      return retryAfterMs === undefined ? { kind: 'retry', message } : { kind: 'retry', message, retryAfterMs };
    }
    return { kind: 'fatal', message: `forward endpoint answered ${message} (not retryable)` };
  }

  private readPartialSuccess(body: Buffer, contentType: string | null): OtlpTraceResponse['partialSuccess'] {
    if (body.length === 0) return undefined;
    try {
      const response = contentType?.includes('json') ? decodeTraceResponseJson(body) : decodeTraceResponseProto(body);
      return response.partialSuccess;
    } catch {
      return undefined; // an unreadable success body still means success
    }
  }
}
