import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MeterProvider } from '@opentelemetry/api';
import { annotateRequest } from './annotate.js';
import type { AnnotateOutcome, SpanAnnotator } from './annotate.js';
import { resolveCollectorConfig } from './config.js';
import type { CollectorConfig, CollectorConfigInput } from './config.js';
import { encodeForQueue, Forwarder } from './forwarder.js';
import { CollectorMetrics } from './metrics.js';
import { decodeTraceRequestJsonPerSpan } from './otlp-json.js';
import { OtlpDecodeError, RPC_INVALID_ARGUMENT, RPC_RESOURCE_EXHAUSTED, RPC_UNAUTHENTICATED, RPC_UNAVAILABLE, RPC_UNIMPLEMENTED } from './otlp-model.js';
import type { DecodedTraceRequest, OtlpTraceResponse } from './otlp-model.js';
import { decodeTraceRequestProtoPerSpan } from './otlp-protobuf.js';
import { KeyValueCap } from './key-caps.js';
import { FileQueueStore } from './queue-store.js';
import { PROMETHEUS_CONTENT_TYPE } from './prometheus-text.js';
import {
  bodyFormatOf,
  declaredLength,
  decodeContentEncoding,
  discardUnreadBody,
  HttpError,
  readBody,
  sendBody,
  sendJson,
  sendRpcStatus,
  sendTraceResponse,
} from './receiver.js';
import type { BodyFormat } from './receiver.js';

export interface RunningCollector {
  /** Base URL, e.g. `http://127.0.0.1:4318` (the bound address; `0.0.0.0` is shown as `127.0.0.1`). */
  url: string;
  port: number;
  /** Stops accepting, drains the forward queue (bounded by `shutdown.timeoutMs`), flushes. Idempotent. */
  close(): Promise<void>;
}

export interface StartCollectorOptions {
  /**
   * Builds the detection engine. Default: a `LoopGuardSpanProcessor` with the
   * `detection:` options and the collector's MeterProvider.
   */
  createAnnotator?: (context: { meterProvider: MeterProvider; detection: Record<string, unknown> }) => SpanAnnotator;
  /** Operational log lines (forward retries, drops, detection errors). Default: stderr. */
  log?: (message: string) => void;
}

const RUNS_PREFIX = '/v1/runs/';
/** Detection errors are logged at most this often; the metric counts every one. */
const ERROR_LOG_INTERVAL_MS = 10_000;
/** How often the engine's idle runs are swept (eviction is then at most this late past the TTL). */
const SWEEP_INTERVAL_MS = 1000;

const defaultLog = (message: string): void => {
  process.stderr.write(`loopguard collector: ${message}\n`);
};

async function defaultAnnotator(
  context: { meterProvider: MeterProvider; detection: Record<string, unknown> },
  onInternalError: (error: unknown) => void,
): Promise<SpanAnnotator> {
  // Loaded on demand: a collector given its own annotator never loads the engine.
  const { LoopGuardSpanProcessor } = await import('../processor.js');
  return new LoopGuardSpanProcessor({ ...context.detection, meterProvider: context.meterProvider, onInternalError });
}

/**
 * Starts the loopguard collector: an OTLP/HTTP receiver that runs the
 * detection engine over every span, forwards the annotated spans, and serves
 * `/metrics`, `/healthz` and `/v1/runs/{key}`.
 */
export async function startCollector(input: CollectorConfig | CollectorConfigInput = {}, options: StartCollectorOptions = {}): Promise<RunningCollector> {
  const config = resolveCollectorConfig(input);
  const log = options.log ?? defaultLog;
  let forwarder: Forwarder | undefined;
  let annotator: SpanAnnotator | undefined;
  const metrics = new CollectorMetrics({
    maxSeriesPerMetric: config.limits.maxSeriesPerMetric,
    queueSize: () => forwarder?.queuedSpans ?? 0,
    runsEvicted: () => annotator?.engine?.evictions ?? 0,
  });
  const context = { meterProvider: metrics.provider, detection: config.detection };
  // Errors the processor catches in itself count as detection errors too (the span is still forwarded).
  annotator = options.createAnnotator ? options.createAnnotator(context) : await defaultAnnotator(context, () => metrics.detectionErrors.add(1));
  forwarder = new Forwarder({
    endpoint: config.forward.endpoint,
    protocol: config.forward.protocol,
    compression: config.forward.compression,
    headers: config.forward.headers,
    timeoutMs: config.forward.timeoutMs,
    maxQueueSpans: config.queue.maxSpans,
    maxQueueBytes: config.queue.maxBytes,
    store: config.queue.directory === undefined ? undefined : new FileQueueStore(config.queue.directory),
    maxBatchSpans: config.batch.maxSpans,
    batchIntervalMs: config.batch.intervalMs,
    maxConcurrentBatches: config.forward.maxConcurrentBatches,
    retry: config.forward.retry,
    onForwarded: (n) => metrics.spansForwarded.add(n),
    onDropped: (n) => metrics.spansDropped.add(n),
    log,
  });
  const restored = forwarder.restore();
  if (restored > 0) log(`delivering ${restored} spans left in the persistent queue by the previous run`);
  const host = new CollectorHost(config, annotator, forwarder, metrics, log);
  return host.listen();
}

class CollectorHost {
  private draining = false;
  private server: Server | undefined;
  private closing: Promise<void> | undefined;
  private lastErrorLog = 0;
  private inFlightTraces = 0;
  /** Body bytes reserved by requests being read or processed (limits.maxInFlightBytes). */
  private inFlightBytes = 0;
  private unloggedErrors = 0;
  private sweepTimer: NodeJS.Timeout | undefined;
  private readonly keyCap: KeyValueCap;

  constructor(
    private readonly config: CollectorConfig,
    private readonly annotator: SpanAnnotator,
    private readonly forwarder: Forwarder,
    private readonly metrics: CollectorMetrics,
    private readonly log: (message: string) => void,
  ) {
    const runKeyAttribute = config.detection.runKeyAttribute;
    this.keyCap = new KeyValueCap(config.limits.maxKeyLength, [typeof runKeyAttribute === 'string' ? runKeyAttribute : undefined]);
  }

  listen(): Promise<RunningCollector> {
    const { headersTimeoutMs, requestTimeoutMs, idleTimeoutMs, keepAliveTimeoutMs, maxConnections } = this.config.server;
    const server = createServer(
      {
        // Node requires headersTimeout <= requestTimeout; the request timeout covers the headers too.
        headersTimeout: Math.min(headersTimeoutMs, requestTimeoutMs),
        requestTimeout: requestTimeoutMs,
        keepAliveTimeout: keepAliveTimeoutMs,
        // Node checks the header and request timeouts on this interval (30 s by default, longer than the timeouts themselves).
        connectionsCheckingInterval: Math.min(1000, headersTimeoutMs, requestTimeoutMs),
      },
      (req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        this.log(`internal error on ${req.method} ${req.url}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        if (!res.headersSent) sendJson(res, 500, { error: 'internal error' });
        else res.destroy();
      });
      },
    );
    // A socket silent this long (a stalled body, a Content-Length never met) is closed.
    server.setTimeout(idleTimeoutMs, (socket) => socket.destroy());
    server.maxConnections = maxConnections;
    this.server = server;
    this.startSweeping();
    const { host, port } = this.config.listen;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        const address = server.address() as AddressInfo;
        const shownHost = address.address === '0.0.0.0' || address.address === '::' ? '127.0.0.1' : address.address;
        const urlHost = shownHost.includes(':') ? `[${shownHost}]` : shownHost;
        resolve({ url: `http://${urlHost}:${address.port}`, port: address.port, close: () => this.close() });
      });
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/healthz') {
      if (!allowMethod(req, res, ['GET', 'HEAD'])) return;
      sendJson(res, this.draining ? 503 : 200, { status: this.draining ? 'draining' : 'ok' });
      return;
    }
    const isTraces = path === '/v1/traces';
    if (!this.authorized(req)) {
      this.metrics.requestsRejected.add(1, { reason: 'unauthorized' });
      const error = new HttpError(401, 'missing or invalid bearer token', 'unauthorized', { 'www-authenticate': 'Bearer realm="loopguard"' }, RPC_UNAUTHENTICATED);
      discardUnreadBody(req, res);
      if (isTraces) sendRpcStatus(res, bodyFormatOf(req.headers['content-type']), error);
      else sendJson(res, 401, { error: error.message }, error.headers);
      return;
    }
    if (isTraces) {
      this.inFlightTraces++;
      try {
        await this.handleTraces(req, res);
      } finally {
        this.inFlightTraces--;
      }
      return;
    }
    if (path === '/metrics') {
      if (!allowMethod(req, res, ['GET', 'HEAD'])) return;
      sendBody(res, 200, PROMETHEUS_CONTENT_TYPE, await this.metrics.renderPrometheus());
      return;
    }
    if (path.startsWith(RUNS_PREFIX) && path.length > RUNS_PREFIX.length) {
      if (!allowMethod(req, res, ['GET', 'HEAD'])) return;
      this.handleRun(path.slice(RUNS_PREFIX.length), res);
      return;
    }
    discardUnreadBody(req, res);
    sendJson(res, 404, { error: `no such endpoint: ${path}` });
  }

  private handleRun(encodedKey: string, res: ServerResponse): void {
    let runKey: string;
    try {
      runKey = decodeURIComponent(encodedKey);
    } catch {
      sendJson(res, 400, { error: 'run key is not valid percent-encoding' });
      return;
    }
    const verdict = this.annotator.verdict(this.keyCap.key(runKey));
    if (verdict === undefined) sendJson(res, 404, { error: `unknown run: ${runKey}`, runKey });
    else sendJson(res, 200, verdict);
  }

  private async handleTraces(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const format = bodyFormatOf(req.headers['content-type']);
    let reserved = 0;
    let admitted: number | undefined;
    try {
      if (req.method !== 'POST') {
        throw new HttpError(405, `method ${req.method} not allowed on /v1/traces; use POST`, undefined, { allow: 'POST' }, RPC_UNIMPLEMENTED);
      }
      if (this.draining) {
        throw new HttpError(503, 'collector is shutting down', undefined, this.retryAfter(), RPC_UNAVAILABLE);
      }
      if (!format) {
        const got = req.headers['content-type'] ?? 'none';
        throw new HttpError(415, `unsupported Content-Type "${got}": use application/x-protobuf or application/json`, 'unsupported_media_type', {}, RPC_INVALID_ARGUMENT);
      }
      // Load is shed before the body is read: a full queue or too much work in flight costs the sender a round trip, not us a decode.
      // And only then: a request admitted is queued whole, so detection never sees spans that the sender will send again.
      const declared = declaredLength(req) ?? 0;
      if (!this.forwarder.admit(declared)) {
        throw new HttpError(503, 'forward queue is full; retry later', 'backpressure', this.retryAfter(), RPC_UNAVAILABLE);
      }
      admitted = declared;
      const max = this.config.maxBodyBytes;
      reserved = this.reserve(req, max);
      const raw = await readBody(req, max);
      const body = await decodeContentEncoding(raw, req.headers['content-encoding'], max);
      if (body !== raw) reserved = this.grow(reserved, body.length);
      const { outcome, wire } = await this.decodeAndAnnotate(format, body);
      const { chunks, refused } = await encodeForQueue(outcome.accepted, this.config.batch.maxSpans, wire, outcome.edits);
      await this.forwarder.enqueue(chunks);
      const rejectedSpans = outcome.rejectedSpans + refused.rejectedSpans;
      const messages = [...outcome.rejectionMessages, ...refused.rejectionMessages];
      this.metrics.spansReceived.add(outcome.acceptedSpans - refused.rejectedSpans);
      if (outcome.detectionErrors > 0) this.metrics.detectionErrors.add(outcome.detectionErrors);
      if (rejectedSpans > 0) this.metrics.spansDropped.add(rejectedSpans);
      const response: OtlpTraceResponse = {};
      if (rejectedSpans > 0) {
        const more = rejectedSpans > messages.length ? '; …' : '';
        response.partialSuccess = {
          rejectedSpans: String(rejectedSpans),
          errorMessage: `${rejectedSpans} span(s) rejected: ${messages.join('; ')}${more}`,
        };
      }
      sendTraceResponse(res, format, response);
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      if (err.reason) this.metrics.requestsRejected.add(1, { reason: err.reason });
      discardUnreadBody(req, res);
      sendRpcStatus(res, format, err);
    } finally {
      this.inFlightBytes -= reserved;
      if (admitted !== undefined) this.forwarder.release(admitted);
    }
  }

  private async decodeAndAnnotate(format: BodyFormat, body: Buffer): Promise<{ outcome: AnnotateOutcome; wire: DecodedTraceRequest['wire'] }> {
    const limits = this.config.limits;
    let decoded: DecodedTraceRequest;
    try {
      decoded = format === 'protobuf' ? await decodeTraceRequestProtoPerSpan(body, limits) : decodeTraceRequestJsonPerSpan(body, limits);
    } catch (err) {
      if (err instanceof OtlpDecodeError) throw new HttpError(400, err.message, 'malformed', {}, RPC_INVALID_ARGUMENT);
      throw err;
    }
    const outcome = await annotateRequest(decoded.request, this.annotator, (err) => this.onDetectionError(err), decoded, this.keyCap);
    return { outcome, wire: decoded.wire };
  }

  /**
   * Reserves a request's body size (its Content-Length, else the body limit)
   * against limits.maxInFlightBytes, or refuses it with 429 + Retry-After. A
   * request arriving with nothing else in flight is always let in.
   */
  private reserve(req: IncomingMessage, maxBodyBytes: number): number {
    const size = Math.min(declaredLength(req) ?? maxBodyBytes, maxBodyBytes);
    if (this.inFlightBytes > 0 && this.inFlightBytes + size > this.config.limits.maxInFlightBytes) {
      throw new HttpError(429, 'too much data in flight; retry later', 'backpressure', this.retryAfter(), RPC_RESOURCE_EXHAUSTED);
    }
    this.inFlightBytes += size;
    return size;
  }

  /** Accounts for a gunzipped body too (it is what detection works on). */
  private grow(reserved: number, decompressed: number): number {
    this.inFlightBytes += decompressed;
    return reserved + decompressed;
  }

  private retryAfter(): Record<string, string> {
    return { 'retry-after': String(this.config.queue.retryAfterSeconds) };
  }

  /** Idle runs are released on a timer, not only when new spans happen to arrive. */
  private startSweeping(): void {
    const engine = this.annotator.engine;
    if (!engine?.sweep) return;
    this.sweepTimer = setInterval(() => {
      try {
        engine.sweep?.();
      } catch (err) {
        this.onDetectionError(err);
      }
    }, SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
  }

  private authorized(req: IncomingMessage): boolean {
    const token = this.config.auth.token;
    if (token === undefined) return true;
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    return match !== null && constantTimeEqual(match[1]!, token);
  }

  private onDetectionError(err: unknown): void {
    const now = Date.now();
    if (now - this.lastErrorLog < ERROR_LOG_INTERVAL_MS) {
      this.unloggedErrors++;
      return;
    }
    const suppressed = this.unloggedErrors > 0 ? ` (${this.unloggedErrors} more since the last report)` : '';
    this.lastErrorLog = now;
    this.unloggedErrors = 0;
    this.log(`detection failed on a span, forwarding it unannotated${suppressed}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  /**
   * Draining keeps the listener up: new spans get 503 + Retry-After (a load
   * balancer or the sender's retry moves them elsewhere), /healthz says 503,
   * verdicts stay readable. Requests already being read finish and are
   * forwarded; then the queue drains and the listener closes.
   */
  private async shutdown(): Promise<void> {
    this.draining = true;
    clearInterval(this.sweepTimer);
    const deadline = Date.now() + this.config.shutdown.timeoutMs;
    const remaining = (): number => Math.max(0, deadline - Date.now());
    while (this.inFlightTraces > 0 && remaining() > 0) await new Promise((r) => setTimeout(r, 5));
    await this.forwarder.drain(remaining());
    const server = this.server!;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
    try {
      await this.annotator.shutdown?.();
    } catch (err) {
      this.log(`detection engine shutdown failed: ${String(err)}`);
    }
    await this.metrics.shutdown();
  }
}

function allowMethod(req: IncomingMessage, res: ServerResponse, methods: string[]): boolean {
  if (methods.includes(req.method ?? '')) return true;
  discardUnreadBody(req, res);
  sendJson(res, 405, { error: `method ${req.method} not allowed; use ${methods.join(' or ')}` }, { allow: methods.join(', ') });
  return false;
}

/** Compares digests so the comparison time does not depend on where the strings differ, nor on their lengths. */
function constantTimeEqual(a: string, b: string): boolean {
  const digest = (v: string): Buffer => createHash('sha256').update(v).digest();
  return timingSafeEqual(digest(a), digest(b));
}
