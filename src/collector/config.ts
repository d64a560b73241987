import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { describeProblem } from '../option-problems.js';
import { LoopGuardConfigError, resolveDetectionOptions } from '../options.js';
import type { DetectionOptions } from '../options.js';
import type { ForwardCompression, ForwardProtocol } from './forwarder.js';
import { MAX_ANY_VALUE_DEPTH_LIMIT } from './otlp-schema.js';

/** The collector's configuration, every field resolved (see docs/collector.md). */
export interface CollectorConfig {
  listen: { host: string; port: number };
  /** Largest accepted request body, compressed and after gunzip alike. */
  maxBodyBytes: number;
  queue: { maxSpans: number; maxBytes: number; directory: string | undefined; retryAfterSeconds: number };
  limits: { maxInFlightBytes: number; maxAnyValueDepth: number; maxValuesPerSpan: number; maxKeyLength: number; maxSeriesPerMetric: number };
  server: { headersTimeoutMs: number; requestTimeoutMs: number; idleTimeoutMs: number; keepAliveTimeoutMs: number; maxConnections: number };
  batch: { maxSpans: number; intervalMs: number };
  forward: {
    endpoint: string | undefined;
    protocol: ForwardProtocol;
    compression: ForwardCompression;
    headers: Record<string, string>;
    timeoutMs: number;
    maxConcurrentBatches: number;
    retry: { initialBackoffMs: number; maxBackoffMs: number; maxAttempts: number };
  };
  auth: { token: string | undefined };
  shutdown: { timeoutMs: number };
  /** Handed as-is to the detection engine (LoopGuardSpanProcessor options). */
  detection: Record<string, unknown>;
}

type DeepPartial<T> = { [K in keyof T]?: T[K] extends Record<string, unknown> ? DeepPartial<T[K]> : T[K] };
/** What `startCollector` accepts: any subset of the fields; the rest take their defaults. */
export type CollectorConfigInput = DeepPartial<Omit<CollectorConfig, 'detection'>> & { detection?: Record<string, unknown> };

export class CollectorConfigError extends Error {
  override readonly name = 'CollectorConfigError';
  constructor(readonly problems: string[]) {
    super(`invalid loopguard collector configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

type FieldKind =
  | { kind: 'int'; min: number; max: number }
  | { kind: 'string'; optional?: boolean }
  | { kind: 'url' }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'headers' };

interface FieldSpec {
  path: string;
  type: FieldKind;
  default: unknown;
  env?: string;
}

const int = (min: number, max = Number.MAX_SAFE_INTEGER): FieldKind => ({ kind: 'int', min, max });
const ENV = 'LOOPGUARD_COLLECTOR_';

/** Every field but `detection`, with its default and its environment variable. */
export const COLLECTOR_CONFIG_FIELDS: readonly FieldSpec[] = [
  { path: 'listen.host', type: { kind: 'string' }, default: '0.0.0.0', env: `${ENV}HOST` },
  { path: 'listen.port', type: int(0, 65535), default: 4318, env: `${ENV}PORT` },
  { path: 'maxBodyBytes', type: int(1), default: 16 * 1024 * 1024, env: `${ENV}MAX_BODY_BYTES` },
  { path: 'queue.maxSpans', type: int(1), default: 20_000, env: `${ENV}QUEUE_MAX_SPANS` },
  { path: 'queue.maxBytes', type: int(1), default: 64 * 1024 * 1024, env: `${ENV}QUEUE_MAX_BYTES` },
  { path: 'queue.directory', type: { kind: 'string', optional: true }, default: undefined, env: `${ENV}QUEUE_DIRECTORY` },
  { path: 'limits.maxInFlightBytes', type: int(1), default: 64 * 1024 * 1024, env: `${ENV}MAX_IN_FLIGHT_BYTES` },
  { path: 'limits.maxAnyValueDepth', type: int(1, MAX_ANY_VALUE_DEPTH_LIMIT), default: 128, env: `${ENV}MAX_ANY_VALUE_DEPTH` },
  { path: 'limits.maxValuesPerSpan', type: int(1), default: 10_000, env: `${ENV}MAX_VALUES_PER_SPAN` },
  { path: 'limits.maxKeyLength', type: int(64, 65_536), default: 256, env: `${ENV}MAX_KEY_LENGTH` },
  { path: 'limits.maxSeriesPerMetric', type: int(10, 1_000_000), default: 2000, env: `${ENV}MAX_SERIES_PER_METRIC` },
  { path: 'server.headersTimeoutMs', type: int(1, 600_000), default: 10_000, env: `${ENV}HEADERS_TIMEOUT_MS` },
  { path: 'server.requestTimeoutMs', type: int(1, 3_600_000), default: 60_000, env: `${ENV}REQUEST_TIMEOUT_MS` },
  { path: 'server.idleTimeoutMs', type: int(1, 3_600_000), default: 15_000, env: `${ENV}IDLE_TIMEOUT_MS` },
  { path: 'server.keepAliveTimeoutMs', type: int(1, 600_000), default: 5_000, env: `${ENV}KEEP_ALIVE_TIMEOUT_MS` },
  { path: 'server.maxConnections', type: int(1), default: 1024, env: `${ENV}MAX_CONNECTIONS` },
  { path: 'queue.retryAfterSeconds', type: int(1, 3600), default: 2, env: `${ENV}QUEUE_RETRY_AFTER_SECONDS` },
  { path: 'batch.maxSpans', type: int(1), default: 512, env: `${ENV}BATCH_MAX_SPANS` },
  { path: 'batch.intervalMs', type: int(0, 60_000), default: 500, env: `${ENV}BATCH_INTERVAL_MS` },
  { path: 'forward.endpoint', type: { kind: 'url' }, default: undefined, env: `${ENV}FORWARD_ENDPOINT` },
  { path: 'forward.protocol', type: { kind: 'enum', values: ['http/protobuf', 'http/json'] }, default: 'http/protobuf', env: `${ENV}FORWARD_PROTOCOL` },
  { path: 'forward.compression', type: { kind: 'enum', values: ['none', 'gzip'] }, default: 'none', env: `${ENV}FORWARD_COMPRESSION` },
  { path: 'forward.headers', type: { kind: 'headers' }, default: {}, env: `${ENV}FORWARD_HEADERS` },
  { path: 'forward.timeoutMs', type: int(1, 600_000), default: 10_000, env: `${ENV}FORWARD_TIMEOUT_MS` },
  { path: 'forward.maxConcurrentBatches', type: int(1, 64), default: 1, env: `${ENV}FORWARD_MAX_CONCURRENT_BATCHES` },
  { path: 'forward.retry.initialBackoffMs', type: int(1, 600_000), default: 500, env: `${ENV}FORWARD_RETRY_INITIAL_BACKOFF_MS` },
  { path: 'forward.retry.maxBackoffMs', type: int(1, 600_000), default: 30_000, env: `${ENV}FORWARD_RETRY_MAX_BACKOFF_MS` },
  { path: 'forward.retry.maxAttempts', type: int(0), default: 0, env: `${ENV}FORWARD_RETRY_MAX_ATTEMPTS` },
  { path: 'auth.token', type: { kind: 'string', optional: true }, default: undefined, env: `${ENV}AUTH_TOKEN` },
  { path: 'shutdown.timeoutMs', type: int(0, 600_000), default: 10_000, env: `${ENV}SHUTDOWN_TIMEOUT_MS` },
];

const SECTIONS = new Set(['listen', 'queue', 'limits', 'server', 'batch', 'forward', 'forward.retry', 'auth', 'shutdown']);
const DETECTION_ENV = `${ENV}DETECTION`;
/** `host:port` in one variable; LOOPGUARD_COLLECTOR_HOST / _PORT override its parts. */
const LISTEN_ENV = `${ENV}LISTEN`;

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'a mapping';
  return String(value);
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function getPath(obj: Record<string, unknown>, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (!isPlainObject(cur)) return undefined;
    cur = cur[part];
  }
  return cur;
}

function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let cur = obj;
  for (const part of parts.slice(0, -1)) {
    if (!isPlainObject(cur[part])) cur[part] = {};
    cur = cur[part] as Record<string, unknown>;
  }
  cur[parts.at(-1)!] = value;
}

/** `k1=v1,k2=v2` with URL-encoded values, as OTEL_EXPORTER_OTLP_HEADERS defines it. */
export function parseHeaderList(text: string, field: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of text.split(',')) {
    if (item.trim() === '') continue;
    const eq = item.indexOf('=');
    if (eq <= 0) throw new CollectorConfigError([`${field}: expected "key=value" pairs separated by commas, got ${JSON.stringify(item.trim())}`]);
    try {
      out[decodeURIComponent(item.slice(0, eq).trim())] = decodeURIComponent(item.slice(eq + 1).trim());
    } catch {
      throw new CollectorConfigError([`${field}: invalid percent-encoding in ${JSON.stringify(item.trim())}`]);
    }
  }
  return out;
}

function checkValue(spec: FieldSpec, raw: unknown, where: string, problems: string[]): unknown {
  const t = spec.type;
  const bad = (expected: string): undefined => {
    problems.push(`${where}: expected ${expected}, got ${describe(raw)}`);
    return undefined;
  };
  switch (t.kind) {
    case 'int': {
      const n = typeof raw === 'string' && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : raw;
      if (typeof n !== 'number' || !Number.isInteger(n) || n < t.min || n > t.max) {
        return bad(t.max === Number.MAX_SAFE_INTEGER ? `an integer >= ${t.min}` : `an integer from ${t.min} to ${t.max}`);
      }
      return n;
    }
    case 'string':
      if (typeof raw !== 'string' || (raw === '' && !t.optional)) return bad('a non-empty string');
      return raw === '' ? undefined : raw;
    case 'url': {
      if (typeof raw !== 'string') return bad('an http:// or https:// URL');
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        return bad('an http:// or https:// URL');
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return bad('an http:// or https:// URL');
      // A bare base URL (no path) means the standard OTLP/HTTP traces path on it.
      if (url.pathname !== '/') return raw;
      url.pathname = '/v1/traces';
      return url.toString();
    }
    case 'enum':
      if (typeof raw !== 'string' || !t.values.includes(raw)) return bad(`one of ${t.values.join(', ')}`);
      return raw;
    case 'headers': {
      if (typeof raw === 'string') {
        try {
          return parseHeaderList(raw, where);
        } catch (err) {
          problems.push(...(err as CollectorConfigError).problems);
          return undefined;
        }
      }
      if (!isPlainObject(raw)) return bad('a mapping of header names to string values');
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(raw)) {
        if (typeof v !== 'string' && typeof v !== 'number') problems.push(`${where}.${k}: expected a string, got ${describe(v)}`);
        else out[k] = String(v);
      }
      return out;
    }
  }
}

function findUnknownFields(input: Record<string, unknown>, prefix: string, problems: string[]): void {
  const known = new Set<string>();
  for (const f of COLLECTOR_CONFIG_FIELDS) {
    if (!f.path.startsWith(prefix)) continue;
    known.add(f.path.slice(prefix.length).split('.')[0]!);
  }
  if (prefix === '') known.add('detection');
  for (const [key, value] of Object.entries(input)) {
    const path = `${prefix}${key}`;
    if (!known.has(key)) {
      problems.push(`${path}: unknown field (known here: ${[...known].sort().join(', ')})`);
    } else if (SECTIONS.has(path) && value !== null) {
      // null: a YAML section whose entries are all commented out, same as absent
      if (!isPlainObject(value)) problems.push(`${path}: expected a mapping, got ${describe(value)}`);
      else findUnknownFields(value, `${path}.`, problems);
    }
  }
}

/**
 * Validates a configuration object and fills in defaults. `origins` tells,
 * per field path, where a value came from (file, environment variable), so
 * error messages point at the right place.
 */
export function resolveCollectorConfig(input: CollectorConfigInput | Record<string, unknown> = {}, origins: Map<string, string> = new Map()): CollectorConfig {
  const problems: string[] = [];
  if (!isPlainObject(input)) throw new CollectorConfigError([`configuration: expected a mapping, got ${describe(input)}`]);
  findUnknownFields(input, '', problems);
  const out: Record<string, unknown> = {};
  for (const spec of COLLECTOR_CONFIG_FIELDS) {
    const raw = getPath(input, spec.path);
    const where = origins.has(spec.path) ? `${spec.path} (from ${origins.get(spec.path)})` : spec.path;
    const value = raw === undefined || raw === null ? spec.default : checkValue(spec, raw, where, problems);
    setPath(out, spec.path, value);
  }
  const detection = (input as Record<string, unknown>).detection;
  if (detection !== undefined && detection !== null && !isPlainObject(detection)) {
    problems.push(`detection: expected a mapping of detection options, got ${describe(detection)}`);
  }
  out.detection = isPlainObject(detection) ? detection : {};
  if (isPlainObject(detection)) {
    try {
      resolveDetectionOptions(detection as DetectionOptions);
    } catch (err) {
      if (err instanceof LoopGuardConfigError) problems.push(...err.problems.map((p) => `detection.${p.option}: ${describeProblem(p)}`));
      else problems.push(String(err));
    }
  }
  const config = out as unknown as CollectorConfig;
  if (problems.length === 0 && config.forward.retry.maxBackoffMs < config.forward.retry.initialBackoffMs) {
    problems.push('forward.retry.maxBackoffMs: expected a value >= forward.retry.initialBackoffMs');
  }
  if (problems.length > 0) throw new CollectorConfigError(problems);
  return config;
}

function tracesEndpointFromBase(base: string): string {
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

/**
 * Reads the YAML file (when given) and applies the environment on top:
 * standard OTEL_EXPORTER_OTLP_* variables for the forward target, then
 * LOOPGUARD_COLLECTOR_* variables, which win. Empty variables count as unset.
 */
export function loadCollectorConfig(path?: string, env: NodeJS.ProcessEnv = process.env): CollectorConfig {
  let input: Record<string, unknown> = {};
  const origins = new Map<string, string>();
  if (path !== undefined) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw new CollectorConfigError([`config file ${path}: cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`]);
    }
    const doc = parseDocument(text, { prettyErrors: true });
    if (doc.errors.length > 0) {
      throw new CollectorConfigError(doc.errors.map((e) => `config file ${path}: invalid YAML: ${e.message}`));
    }
    const parsed: unknown = doc.toJS();
    if (parsed !== null && parsed !== undefined) {
      if (!isPlainObject(parsed)) throw new CollectorConfigError([`config file ${path}: expected a mapping at the top level, got ${describe(parsed)}`]);
      input = parsed;
    }
    for (const f of COLLECTOR_CONFIG_FIELDS) if (getPath(input, f.path) !== undefined) origins.set(f.path, path);
  }
  const fromEnv = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const overlay = (field: string, name: string, value: unknown): void => {
    setPath(input, field, value);
    origins.set(field, name);
  };
  const otelLayers: [string, string, (v: string) => unknown][] = [
    ['forward.endpoint', 'OTEL_EXPORTER_OTLP_ENDPOINT', tracesEndpointFromBase],
    ['forward.endpoint', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', (v) => v],
    ['forward.protocol', 'OTEL_EXPORTER_OTLP_PROTOCOL', (v) => v],
    ['forward.protocol', 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', (v) => v],
    ['forward.timeoutMs', 'OTEL_EXPORTER_OTLP_TIMEOUT', (v) => v],
    ['forward.timeoutMs', 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', (v) => v],
    ['forward.compression', 'OTEL_EXPORTER_OTLP_COMPRESSION', (v) => v],
    ['forward.compression', 'OTEL_EXPORTER_OTLP_TRACES_COMPRESSION', (v) => v],
  ];
  for (const [field, name, map] of otelLayers) {
    const v = fromEnv(name);
    if (v !== undefined) overlay(field, name, map(v));
  }
  for (const name of ['OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS']) {
    const v = fromEnv(name);
    if (v === undefined) continue;
    const current = getPath(input, 'forward.headers');
    overlay('forward.headers', name, { ...(isPlainObject(current) ? current : {}), ...parseHeaderList(v, name) });
  }
  const listen = fromEnv(LISTEN_ENV);
  if (listen !== undefined) {
    const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(listen);
    if (!match) throw new CollectorConfigError([`${LISTEN_ENV}: expected host:port (e.g. 0.0.0.0:4319 or [::]:4319), got ${JSON.stringify(listen)}`]);
    overlay('listen.host', LISTEN_ENV, match[1] ?? (match[2] || '0.0.0.0'));
    overlay('listen.port', LISTEN_ENV, match[3]);
  }
  for (const f of COLLECTOR_CONFIG_FIELDS) {
    const v = f.env ? fromEnv(f.env) : undefined;
    if (v === undefined) continue;
    if (f.path === 'forward.headers') {
      const current = getPath(input, f.path);
      overlay(f.path, f.env!, { ...(isPlainObject(current) ? current : {}), ...parseHeaderList(v, f.env!) });
    } else {
      overlay(f.path, f.env!, v);
    }
  }
  const detectionJson = fromEnv(DETECTION_ENV);
  if (detectionJson !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(detectionJson);
    } catch (err) {
      throw new CollectorConfigError([`${DETECTION_ENV}: expected a JSON object, got invalid JSON (${(err as Error).message})`]);
    }
    if (!isPlainObject(parsed)) throw new CollectorConfigError([`${DETECTION_ENV}: expected a JSON object, got ${describe(parsed)}`]);
    const current = input.detection;
    input.detection = { ...(isPlainObject(current) ? current : {}), ...parsed };
  }
  return resolveCollectorConfig(input, origins);
}
