import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import { encodeChunk } from './otlp-encode.js';
import type { SpanEdits, WireBytes } from './otlp-encode.js';
import type { OtlpResourceSpans, OtlpTraceRequest, OtlpTraceResponse, SpanRejections } from './otlp-model.js';
import { decodeTraceResponseJson, encodeTraceRequestJson } from './otlp-json.js';
import { decodeTraceRequestProto, decodeTraceResponseProto } from './otlp-protobuf.js';
import type { FileQueueStore } from './queue-store.js';
import { TimeSlicer } from './time-slicer.js';

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
  /** Encoded protobuf bytes the queue may hold. */
  maxQueueBytes: number;
  maxBatchSpans: number;
  /** Longest a span waits for its batch to fill before the batch is sent anyway. */
  batchIntervalMs: number;
  /** Batches in flight at once; 1 keeps spans leaving in arrival order. */
  maxConcurrentBatches: number;
  retry: RetryOptions;
  /** Keeps the queue on disk so a restart delivers what was acknowledged but not yet forwarded. */
  store?: FileQueueStore | undefined;
  onForwarded: (spans: number) => void;
  onDropped: (spans: number, reason: string) => void;
  log: (message: string) => void;
}

/** Spans ready for the queue: an encoded ExportTraceServiceRequest (protobuf) and how many spans it holds. */
export interface EncodedChunk {
  body: Uint8Array;
  spans: number;
}

interface QueuedChunk extends EncodedChunk {
  enqueuedAt: number;
  /** Its file in the persistent store, if any. */
  storeId: number | undefined;
}

/** HTTP statuses the OTLP specification lists as retryable. */
const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
/** Upper bound on a server-requested Retry-After, so one bad header cannot park the queue for hours. */
const MAX_RETRY_AFTER_MS = 5 * 60_000;

class StoppedError extends Error {}

/** Resolves after `ms`, or early when `wake` fires; rejects (StoppedError) when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal, wake: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new StoppedError('stopped'));
    const cleanup = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      wake.removeEventListener('abort', onWake);
    };
    const onAbort = (): void => {
      cleanup();
      reject(new StoppedError('stopped'));
    };
    const onWake = (): void => {
      cleanup();
      resolve();
    };
    const timer = setTimeout(onWake, ms);
    signal.addEventListener('abort', onAbort, { once: true });
    wake.addEventListener('abort', onWake, { once: true });
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
 * Encodes accepted spans for the queue in chunks of at most `maxBatchSpans`.
 * Encoding here, in the request that brought the spans, means whatever is
 * acknowledged is known to be forwardable: a batch is then the concatenation
 * of its chunks (concatenated protobuf messages merge, so the repeated
 * `resourceSpans` simply add up) and one sender's odd data can never make
 * another sender's batch fail. A chunk that does not encode as a whole is
 * encoded span by span, and only the spans that fail are refused.
 */
export async function encodeForQueue(
  request: OtlpTraceRequest,
  maxBatchSpans: number,
  wire: WireBytes = new WeakMap(),
  edits: SpanEdits = new WeakMap(),
): Promise<{ chunks: EncodedChunk[]; refused: SpanRejections }> {
  const refused: SpanRejections = { rejectedSpans: 0, rejectionMessages: [] };
  const chunks: EncodedChunk[] = [];
  const slicer = new TimeSlicer(10, 1);
  for (const chunk of splitIntoChunks(request, maxBatchSpans)) {
    if (slicer.due()) await slicer.pause();
    const encoded = encodeChunk(chunk.resourceSpans, wire, edits, refused);
    if (encoded.spans > 0) chunks.push(encoded);
  }
  return { chunks, refused };
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
  private queuedBytes = 0;
  /** Spans queued and not yet taken into a batch (queued counts those in flight too). */
  private pending = 0;
  /** Body bytes of requests admitted and not yet queued (see `admit`). */
  private admittedBytes = 0;
  /** Batches being sent, each by its own worker. */
  private readonly workers = new Set<Promise<void>>();
  private draining = false;
  private readonly stop = new AbortController();
  /** Aborted when the drain starts: cuts retry backoffs short. */
  private readonly drainStarted = new AbortController();
  /** Workers waiting for a batch to fill; woken when it does, or when the drain starts. */
  private readonly wakers = new Set<() => void>();

  constructor(private readonly options: ForwarderOptions) {}

  get queuedSpans(): number {
    return this.queued;
  }

  get queueBytes(): number {
    return this.queuedBytes;
  }

  get enabled(): boolean {
    return this.options.endpoint !== undefined;
  }

  /**
   * Admits a request of `incomingBytes` (its body size: about its encoded size
   * for protobuf, more than it for JSON) if the queue has room for it, counting
   * the requests admitted before it and not yet queued; decided before the body
   * is read, and never revisited, so a request admitted is queued whole and
   * detection never sees spans the sender will send again. An empty queue
   * admits anything, so a request bigger than the whole queue is not refused
   * forever. Release the bytes with `release` once the request is queued or
   * failed. The queue can exceed its bounds by what was admitted at once
   * (bounded by limits.maxInFlightBytes and the JSON-to-protobuf size ratio).
   */
  admit(incomingBytes: number): boolean {
    if (this.enabled && (this.queued > 0 || this.admittedBytes > 0)) {
      if (this.queued >= this.options.maxQueueSpans) return false;
      if (this.queuedBytes + this.admittedBytes + incomingBytes > this.options.maxQueueBytes) return false;
    }
    this.admittedBytes += incomingBytes;
    return true;
  }

  release(admittedBytes: number): void {
    this.admittedBytes -= admittedBytes;
  }

  /** Queues chunks (on disk first, when the queue is persistent): once this resolves, the spans may be acknowledged. */
  async enqueue(chunks: readonly EncodedChunk[]): Promise<void> {
    if (!this.enabled || this.stop.signal.aborted) return;
    const store = this.options.store;
    const storeIds = store ? await Promise.all(chunks.map((c) => store.write(c.body, c.spans))) : [];
    const now = Date.now();
    chunks.forEach((chunk, i) => this.push({ ...chunk, enqueuedAt: now, storeId: storeIds[i] }));
    if (this.pending >= this.options.maxBatchSpans) this.wakeAll();
    this.start();
  }

  /** Queues what a previous process left in the persistent store, ahead of anything new. */
  restore(): number {
    const store = this.options.store;
    if (!store || !this.enabled) return 0;
    let spans = 0;
    for (const chunk of store.load()) {
      this.push({ body: chunk.body, spans: chunk.spans, enqueuedAt: 0, storeId: chunk.id });
      spans += chunk.spans;
    }
    this.start();
    return spans;
  }

  private push(chunk: QueuedChunk): void {
    this.queue.push(chunk);
    this.pending += chunk.spans;
    this.queued += chunk.spans;
    this.queuedBytes += chunk.body.length;
  }

  /**
   * Sends everything still queued, without waiting for batches to fill and
   * cutting retry backoffs short, for at most `timeoutMs`. What is left then
   * (the batch in flight included, since its delivery was not acknowledged)
   * stays in the persistent store for the next start, or without one is
   * dropped and counted.
   */
  async drain(timeoutMs: number): Promise<void> {
    this.draining = true;
    this.drainStarted.abort();
    this.wakeAll();
    this.start();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    await Promise.race([this.idle(), deadline]);
    clearTimeout(timer);
    this.stop.abort();
    await this.idle();
    if (this.queued === 0) return;
    if (this.options.store) {
      this.options.log(`${this.queued} acknowledged spans not yet forwarded stay in the persistent queue for the next start`);
    } else {
      this.options.onDropped(this.queued, 'drain timed out');
      this.options.log(`dropped ${this.queued} queued spans: drain timed out after ${timeoutMs} ms`);
    }
    this.queue.length = 0;
    this.pending = 0;
    this.queued = 0;
    this.queuedBytes = 0;
  }

  private wakeAll(): void {
    for (const wake of this.wakers) wake();
  }

  /** Resolves when no worker is left (workers end when the queue is empty or the forwarder stopped). */
  private async idle(): Promise<void> {
    while (this.workers.size > 0) await Promise.all(this.workers);
  }

  /** Starts workers, up to `maxConcurrentBatches`, while there is something to send. */
  private start(): void {
    while (this.workers.size < this.options.maxConcurrentBatches && this.queue.length > this.workers.size && !this.stop.signal.aborted) {
      const worker: Promise<void> = this.work().finally(() => this.workers.delete(worker));
      this.workers.add(worker);
    }
  }

  private async work(): Promise<void> {
    while (this.queue.length > 0 && !this.stop.signal.aborted) {
      await this.waitForBatch();
      if (this.queue.length === 0) return; // another worker took it
      const batch = this.takeBatch();
      let settled: boolean;
      try {
        settled = await this.sendWithRetry(batch);
      } catch (err) {
        // A bug, not an outage: the batch is counted as dropped and the queue keeps moving.
        this.options.log(`forwarding a batch failed unexpectedly: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        this.options.onDropped(batch.reduce((n, c) => n + c.spans, 0), 'internal error');
        settled = true;
      }
      // Unsettled (stopped while in flight): its spans stay counted, and stored, for drain() to account for.
      if (settled) await this.settle(batch);
    }
  }

  private async settle(batch: QueuedChunk[]): Promise<void> {
    for (const c of batch) {
      this.queued -= c.spans;
      this.queuedBytes -= c.body.length;
    }
    const store = this.options.store;
    if (!store) return;
    for (const c of batch) {
      if (c.storeId === undefined) continue;
      await store.remove(c.storeId, c.spans).catch((err: unknown) => this.options.log(`could not remove a forwarded chunk from the persistent queue: ${String(err)}`));
    }
  }

  private waitForBatch(): Promise<void> {
    const oldest = this.queue[0];
    if (this.draining || !oldest || this.pending >= this.options.maxBatchSpans) return Promise.resolve();
    const wait = oldest.enqueuedAt + this.options.batchIntervalMs - Date.now();
    if (wait <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, wait);
      this.wakers.add(wake);
    });
  }

  /** Takes the chunks at the head of the queue that make the next batch; their spans stay counted until settled. */
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
    this.pending -= spans;
    return batch;
  }

  /** Delivers a batch; true when it is settled (acknowledged or given up on), false when stopped before that. */
  private async sendWithRetry(batch: QueuedChunk[]): Promise<boolean> {
    const spans = batch.reduce((n, c) => n + c.spans, 0);
    const { initialBackoffMs, maxBackoffMs, maxAttempts } = this.options.retry;
    const body = await this.encode(batch);
    for (let attempt = 1; ; attempt++) {
      let result: Awaited<ReturnType<Forwarder['post']>>;
      try {
        result = await this.post(body);
      } catch (err) {
        if (err instanceof StoppedError) return false;
        throw err;
      }
      if (result.kind === 'ok') {
        const rejected = Math.min(spans, result.rejected);
        if (rejected > 0) {
          this.options.onDropped(rejected, 'rejected by forward endpoint');
          this.options.log(`forward endpoint rejected ${rejected} of ${spans} spans: ${result.message}`);
        }
        this.options.onForwarded(spans - rejected);
        return true;
      }
      if (result.kind === 'fatal' || (maxAttempts > 0 && attempt >= maxAttempts)) {
        const why = result.kind === 'fatal' ? result.message : `${result.message}; gave up after ${attempt} attempts`;
        this.options.onDropped(spans, why);
        this.options.log(`dropped ${spans} spans: ${why}`);
        return true;
      }
      const backoff = Math.min(maxBackoffMs, initialBackoffMs * 2 ** (attempt - 1)) * (0.8 + Math.random() * 0.4);
      // While draining, keep trying at the initial pace: the budget, not the backoff, ends the attempts.
      const delay = this.draining ? Math.min(initialBackoffMs, result.retryAfterMs ?? initialBackoffMs) : (result.retryAfterMs ?? backoff);
      this.options.log(`forward attempt ${attempt} failed (${result.message}); retrying in ${Math.round(delay)} ms`);
      try {
        await sleep(delay, this.stop.signal, this.drainStarted.signal);
      } catch (err) {
        if (err instanceof StoppedError) return false;
        throw err;
      }
    }
  }

  private async encode(batch: readonly QueuedChunk[]): Promise<Uint8Array> {
    const proto = batch.length === 1 ? batch[0]!.body : Buffer.concat(batch.map((c) => c.body));
    const raw = this.options.protocol === 'http/json' ? Buffer.from(encodeTraceRequestJson(decodeTraceRequestProto(proto))) : proto;
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
