import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MeterProvider } from '@opentelemetry/api';
import { annotateRequest } from './annotate.js';
import type { SpanAnnotator } from './annotate.js';
import { resolveCollectorConfig } from './config.js';
import type { CollectorConfig, CollectorConfigInput } from './config.js';
import { Forwarder } from './forwarder.js';
import { CollectorMetrics } from './metrics.js';
import { decodeTraceRequestJson } from './otlp-json.js';
import { countSpans, OtlpDecodeError, RPC_INVALID_ARGUMENT, RPC_UNAUTHENTICATED, RPC_UNAVAILABLE, RPC_UNIMPLEMENTED } from './otlp-model.js';
import type { OtlpTraceResponse } from './otlp-model.js';
import { decodeTraceRequestProto } from './otlp-protobuf.js';
import { PROMETHEUS_CONTENT_TYPE } from './prometheus-text.js';
import {
  bodyFormatOf,
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
    maxBatchSpans: config.batch.maxSpans,
    batchIntervalMs: config.batch.intervalMs,
    retry: config.forward.retry,
    onForwarded: (n) => metrics.spansForwarded.add(n),
    onDropped: (n) => metrics.spansDropped.add(n),
    log,
  });
  const host = new CollectorHost(config, annotator, forwarder, metrics, log);
  return host.listen();
}

class CollectorHost {
  private draining = false;
  private server: Server | undefined;
  private closing: Promise<void> | undefined;
  private lastErrorLog = 0;
  private inFlightTraces = 0;
  private unloggedErrors = 0;

  constructor(
    private readonly config: CollectorConfig,
    private readonly annotator: SpanAnnotator,
    private readonly forwarder: Forwarder,
    private readonly metrics: CollectorMetrics,
    private readonly log: (message: string) => void,
  ) {}

  listen(): Promise<RunningCollector> {
    const server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        this.log(`internal error on ${req.method} ${req.url}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        if (!res.headersSent) sendJson(res, 500, { error: 'internal error' });
        else res.destroy();
      });
    });
    this.server = server;
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
    const verdict = this.annotator.verdict(runKey);
    if (verdict === undefined) sendJson(res, 404, { error: `unknown run: ${runKey}`, runKey });
    else sendJson(res, 200, verdict);
  }

  private async handleTraces(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const format = bodyFormatOf(req.headers['content-type']);
    try {
      if (req.method !== 'POST') {
        throw new HttpError(405, `method ${req.method} not allowed on /v1/traces; use POST`, undefined, { allow: 'POST' }, RPC_UNIMPLEMENTED);
      }
      if (this.draining) {
        throw new HttpError(503, 'collector is shutting down', undefined, { 'retry-after': String(this.config.queue.retryAfterSeconds) }, RPC_UNAVAILABLE);
      }
      if (!format) {
        const got = req.headers['content-type'] ?? 'none';
        throw new HttpError(415, `unsupported Content-Type "${got}": use application/x-protobuf or application/json`, 'unsupported_media_type', {}, RPC_INVALID_ARGUMENT);
      }
      const max = this.config.maxBodyBytes;
      const raw = await readBody(req, max);
      const body = await decodeContentEncoding(raw, req.headers['content-encoding'], max);
      let request;
      try {
        request = format === 'protobuf' ? decodeTraceRequestProto(body) : decodeTraceRequestJson(body);
      } catch (err) {
        if (err instanceof OtlpDecodeError) throw new HttpError(400, err.message, 'malformed', {}, RPC_INVALID_ARGUMENT);
        throw err;
      }
      const total = countSpans(request);
      // Refused before detection runs: the sender retries the whole request, and
      // its spans must not be counted twice in their runs' histories.
      if (!this.forwarder.canAccept(total)) {
        throw new HttpError(503, 'forward queue is full; retry later', 'backpressure', { 'retry-after': String(this.config.queue.retryAfterSeconds) }, RPC_UNAVAILABLE);
      }
      const outcome = annotateRequest(request, this.annotator, (err) => this.onDetectionError(err));
      this.metrics.spansReceived.add(outcome.acceptedSpans);
      if (outcome.detectionErrors > 0) this.metrics.detectionErrors.add(outcome.detectionErrors);
      if (outcome.rejectedSpans > 0) this.metrics.spansDropped.add(outcome.rejectedSpans);
      this.forwarder.enqueue(outcome.accepted);
      const response: OtlpTraceResponse = {};
      if (outcome.rejectedSpans > 0) {
        const more = outcome.rejectedSpans > outcome.rejectionMessages.length ? '; …' : '';
        response.partialSuccess = {
          rejectedSpans: String(outcome.rejectedSpans),
          errorMessage: `${outcome.rejectedSpans} span(s) rejected: ${outcome.rejectionMessages.join('; ')}${more}`,
        };
      }
      sendTraceResponse(res, format, response);
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      if (err.reason) this.metrics.requestsRejected.add(1, { reason: err.reason });
      discardUnreadBody(req, res);
      sendRpcStatus(res, format, err);
    }
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
