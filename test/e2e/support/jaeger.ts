/** Jaeger v2 for e2e tests: collector-config/jaeger/config.yaml on free loopback ports. */
import { binaryPath, collectorConfigPath } from './paths.js';
import { freePorts } from './ports.js';
import { startService, type ServiceHandle } from './service.js';
import { getJson, httpOk, waitFor } from './wait.js';

export interface JaegerInstance {
  /** Base URL of the OTLP/HTTP receiver; spans go to `${otlpHttpUrl}/v1/traces`. */
  readonly otlpHttpUrl: string;
  /** Base URL of the query HTTP API (`/api/traces`, `/api/services`). */
  readonly queryUrl: string;
  readonly ports: { otlpHttp: number; queryHttp: number; queryGrpc: number };
  readonly service: ServiceHandle;
  stop(): Promise<void>;
}

export async function startJaeger(options: { configPath?: string; readyTimeoutMs?: number } = {}): Promise<JaegerInstance> {
  const [otlpHttp, queryHttp, queryGrpc] = (await freePorts(3)) as [number, number, number];
  const queryUrl = `http://127.0.0.1:${queryHttp}`;
  const otlpHttpUrl = `http://127.0.0.1:${otlpHttp}`;
  const service = await startService({
    name: 'jaeger',
    command: binaryPath('jaeger'),
    args: ['--config', options.configPath ?? collectorConfigPath('jaeger', 'config.yaml')],
    env: {
      JAEGER_BIND_HOST: '127.0.0.1',
      JAEGER_OTLP_HTTP_PORT: String(otlpHttp),
      JAEGER_QUERY_HTTP_PORT: String(queryHttp),
      JAEGER_QUERY_GRPC_PORT: String(queryGrpc),
    },
    // The query API answering means storage is up; the receiver starts in the same pipeline build.
    isReady: async () => (await httpOk(`${queryUrl}/api/services`)) && (await acceptsOtlp(otlpHttpUrl)),
    readyTimeoutMs: options.readyTimeoutMs ?? 60_000,
  });
  return { otlpHttpUrl, queryUrl, ports: { otlpHttp, queryHttp, queryGrpc }, service, stop: () => service.stop() };
}

/** An empty OTLP/JSON export is accepted once the receiver listens. */
async function acceptsOtlp(baseUrl: string): Promise<boolean> {
  try {
    const response = await fetch(`${baseUrl}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"resourceSpans":[]}',
      signal: AbortSignal.timeout(1_000),
    });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

// --- query API (the JSON the Jaeger UI reads) ---

export interface JaegerTag {
  key: string;
  type: string;
  value: string | number | boolean;
}

export interface JaegerLog {
  timestamp: number;
  fields: JaegerTag[];
}

export interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: { refType: string; traceID: string; spanID: string }[];
  startTime: number;
  duration: number;
  tags: JaegerTag[];
  /** OTLP span events; the event name is the field `event`. */
  logs: JaegerLog[];
  processID: string;
}

export interface JaegerTrace {
  traceID: string;
  spans: JaegerSpan[];
  processes: Record<string, { serviceName: string; tags: JaegerTag[] }>;
}

export interface FindTracesQuery {
  service: string;
  /** Span tags that must all match, e.g. `{ 'loopguard.level': 'break' }`. */
  tags?: Record<string, string>;
  operation?: string;
  /** Default 1h. */
  lookback?: string;
  /** Default 100. */
  limit?: number;
}

/** GET /api/traces: the traces of `service` with a span matching every tag. */
export async function jaegerFindTraces(queryUrl: string, query: FindTracesQuery): Promise<JaegerTrace[]> {
  const params = new URLSearchParams({
    service: query.service,
    lookback: query.lookback ?? '1h',
    limit: String(query.limit ?? 100),
  });
  if (query.tags && Object.keys(query.tags).length > 0) params.set('tags', JSON.stringify(query.tags));
  if (query.operation) params.set('operation', query.operation);
  const body = await getJson<{ data: JaegerTrace[] | null; errors: unknown }>(`${queryUrl}/api/traces?${params.toString()}`);
  if (body.errors) throw new Error(`Jaeger /api/traces reported errors: ${JSON.stringify(body.errors)}`);
  return body.data ?? [];
}

/** GET /api/traces/{id}; undefined while Jaeger does not have it. */
export async function jaegerGetTrace(queryUrl: string, traceId: string): Promise<JaegerTrace | undefined> {
  const response = await fetch(`${queryUrl}/api/traces/${traceId}`, { signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  if (response.status === 404) return undefined;
  if (!response.ok) throw new Error(`GET /api/traces/${traceId} answered ${response.status}: ${text.slice(0, 300)}`);
  const body = JSON.parse(text) as { data: JaegerTrace[] | null };
  return body.data?.[0];
}

/** Polls jaegerFindTraces until at least `minTraces` match (ingestion is asynchronous). */
export async function jaegerWaitForTraces(
  queryUrl: string,
  query: FindTracesQuery,
  { minTraces = 1, timeoutMs = 30_000 }: { minTraces?: number; timeoutMs?: number } = {},
): Promise<JaegerTrace[]> {
  return waitFor(
    async () => {
      const traces = await jaegerFindTraces(queryUrl, query);
      return traces.length >= minTraces ? traces : undefined;
    },
    { description: `${minTraces} Jaeger trace(s) for ${JSON.stringify(query)}`, timeoutMs },
  );
}

/** The value of a span tag, or undefined. */
export function jaegerTag(span: Pick<JaegerSpan, 'tags'>, key: string): JaegerTag['value'] | undefined {
  return span.tags.find((tag) => tag.key === key)?.value;
}

/** The span's events named `name`, as field maps (the `event` field holds the name). */
export function jaegerEvents(span: Pick<JaegerSpan, 'logs'>, name: string): Record<string, JaegerTag['value']>[] {
  return span.logs
    .map((log) => Object.fromEntries(log.fields.map((field) => [field.key, field.value])))
    .filter((fields) => fields.event === name);
}
