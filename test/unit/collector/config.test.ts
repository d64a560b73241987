import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CollectorConfigError, loadCollectorConfig, resolveCollectorConfig } from '../../../src/collector/index.js';
import type { CollectorConfig } from '../../../src/collector/index.js';

const dir = mkdtempSync(join(tmpdir(), 'loopguard-collector-config-'));
let n = 0;
function yamlFile(text: string): string {
  const path = join(dir, `c${n++}.yaml`);
  writeFileSync(path, text);
  return path;
}

const DEFAULTS: CollectorConfig = {
  listen: { host: '0.0.0.0', port: 4318 },
  maxBodyBytes: 16 * 1024 * 1024,
  queue: { maxSpans: 20_000, maxBytes: 64 * 1024 * 1024, directory: undefined, retryAfterSeconds: 2 },
  limits: { maxInFlightBytes: 64 * 1024 * 1024, maxAnyValueDepth: 128, maxValuesPerSpan: 10_000, maxKeyLength: 256, maxSeriesPerMetric: 2000 },
  server: { headersTimeoutMs: 10_000, requestTimeoutMs: 60_000, idleTimeoutMs: 15_000, keepAliveTimeoutMs: 5_000, maxConnections: 1024 },
  batch: { maxSpans: 512, intervalMs: 500 },
  forward: {
    endpoint: undefined,
    protocol: 'http/protobuf',
    compression: 'none',
    headers: {},
    timeoutMs: 10_000,
    maxConcurrentBatches: 1,
    retry: { initialBackoffMs: 500, maxBackoffMs: 30_000, maxAttempts: 0 },
  },
  auth: { token: undefined },
  shutdown: { timeoutMs: 10_000 },
  detection: {},
};

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CollectorConfigError);
    return (err as CollectorConfigError).problems;
  }
  throw new Error('expected a CollectorConfigError');
}

describe('loadCollectorConfig', () => {
  it('gives the documented defaults with no file and no environment', () => {
    expect(loadCollectorConfig(undefined, {})).toEqual(DEFAULTS);
  });

  it('loads the example YAML of docs/collector.md, which spells out every default', () => {
    const doc = readFileSync(new URL('../../../docs/collector.md', import.meta.url), 'utf8');
    const example = /```yaml\n(# collector\.yaml[\s\S]*?)```/.exec(doc)![1]!;
    const config = loadCollectorConfig(yamlFile(example), {});
    expect({ ...config, detection: {} }).toEqual(DEFAULTS);
    expect(config.detection).toEqual({ preset: 'balanced', maxRuns: 10000, runTtlMs: 1800000 });
  });

  it('reads a YAML file and lets the environment override it', () => {
    const path = yamlFile(`
listen: { host: 127.0.0.1, port: 9000 }
forward:
  endpoint: http://file:4318/v1/traces
  headers: { x-a: from-file, x-b: from-file }
detection:
  preset: aggressive
`);
    const config = loadCollectorConfig(path, {
      LOOPGUARD_COLLECTOR_PORT: '9100',
      LOOPGUARD_COLLECTOR_AUTH_TOKEN: 'tok',
      LOOPGUARD_COLLECTOR_FORWARD_HEADERS: 'x-b=from%20env',
      LOOPGUARD_COLLECTOR_DETECTION: '{"window": 40}',
      LOOPGUARD_COLLECTOR_QUEUE_MAX_SPANS: '  ',
    });
    expect(config.listen).toEqual({ host: '127.0.0.1', port: 9100 });
    expect(config.forward.endpoint).toBe('http://file:4318/v1/traces');
    expect(config.forward.headers).toEqual({ 'x-a': 'from-file', 'x-b': 'from env' });
    expect(config.auth.token).toBe('tok');
    expect(config.queue.maxSpans).toBe(20_000);
    expect(config.detection).toEqual({ preset: 'aggressive', window: 40 });
  });

  it('takes the forward target from the standard OTLP exporter variables, below LOOPGUARD_COLLECTOR_*', () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318/', OTEL_EXPORTER_OTLP_HEADERS: 'api-key=a%3Db,x=1', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' };
    const a = loadCollectorConfig(undefined, base);
    expect(a.forward.endpoint).toBe('http://jaeger:4318/v1/traces');
    expect(a.forward.headers).toEqual({ 'api-key': 'a=b', x: '1' });
    expect(a.forward.protocol).toBe('http/json');
    const b = loadCollectorConfig(undefined, { ...base, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://tempo/otlp/v1/traces' });
    expect(b.forward.endpoint).toBe('https://tempo/otlp/v1/traces');
    const c = loadCollectorConfig(undefined, {
      ...base,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://tempo/otlp/v1/traces',
      LOOPGUARD_COLLECTOR_FORWARD_ENDPOINT: 'http://mine:1/v1/traces',
    });
    expect(c.forward.endpoint).toBe('http://mine:1/v1/traces');
  });

  it('names the field, where its value came from, and what was expected', () => {
    const path = yamlFile('listen:\n  port: 70000\nlisen: {}\nqueue: 5\nforward:\n  retry:\n    maxAttempts: -1\n');
    const problems = problemsOf(() =>
      loadCollectorConfig(path, { LOOPGUARD_COLLECTOR_BATCH_MAX_SPANS: 'lots', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        `listen.port (from ${path}): expected an integer from 0 to 65535, got 70000`,
        'lisen: unknown field (known here: auth, batch, detection, forward, limits, listen, maxBodyBytes, queue, server, shutdown)',
        'queue: expected a mapping, got 5',
        'batch.maxSpans (from LOOPGUARD_COLLECTOR_BATCH_MAX_SPANS): expected an integer >= 1, got "lots"',
        'forward.protocol (from OTEL_EXPORTER_OTLP_PROTOCOL): expected one of http/protobuf, http/json, got "grpc"',
        `forward.retry.maxAttempts (from ${path}): expected an integer >= 0, got -1`,
      ]),
    );
  });

  it('validates detection options with the engine own rules', () => {
    const problems = problemsOf(() => resolveCollectorConfig({ detection: { window: 2 } }));
    expect(problems).toEqual(['detection.window: option "window" must be an integer from 4 to 256; received 2']);
    expect(problemsOf(() => resolveCollectorConfig({ detection: { windw: 30 } }))[0]).toMatch(/^detection\.windw: /);
  });

  it('reports unreadable files, YAML syntax errors and bad URLs clearly', () => {
    expect(problemsOf(() => loadCollectorConfig(join(dir, 'missing.yaml'), {}))[0]).toBe(`config file ${join(dir, 'missing.yaml')}: cannot be read (ENOENT)`);
    const broken = yamlFile('listen:\n  port: [1,\n');
    expect(problemsOf(() => loadCollectorConfig(broken, {}))[0]).toMatch(new RegExp(`^config file ${broken}: invalid YAML: `));
    expect(problemsOf(() => loadCollectorConfig(yamlFile('- a\n- b\n'), {}))[0]).toMatch(/expected a mapping at the top level, got a list/);
    expect(problemsOf(() => resolveCollectorConfig({ forward: { endpoint: 'jaeger:4318' } }))).toEqual([
      'forward.endpoint: expected an http:// or https:// URL, got "jaeger:4318"',
    ]);
    expect(problemsOf(() => loadCollectorConfig(undefined, { LOOPGUARD_COLLECTOR_DETECTION: '[1]' }))).toEqual([
      'LOOPGUARD_COLLECTOR_DETECTION: expected a JSON object, got a list',
    ]);
  });

  it('takes a bare base URL as the forward endpoint, and host:port in LOOPGUARD_COLLECTOR_LISTEN', () => {
    const config = loadCollectorConfig(undefined, { LOOPGUARD_COLLECTOR_LISTEN: '0.0.0.0:4319', LOOPGUARD_COLLECTOR_FORWARD_ENDPOINT: 'http://otelcol:4320' });
    expect(config.listen).toEqual({ host: '0.0.0.0', port: 4319 });
    expect(config.forward.endpoint).toBe('http://otelcol:4320/v1/traces');
    expect(resolveCollectorConfig({ forward: { endpoint: 'https://tempo/' } }).forward.endpoint).toBe('https://tempo/v1/traces');
    expect(resolveCollectorConfig({ forward: { endpoint: 'https://tempo/otlp/v1/traces' } }).forward.endpoint).toBe('https://tempo/otlp/v1/traces');
    expect(loadCollectorConfig(undefined, { LOOPGUARD_COLLECTOR_LISTEN: '[::1]:9', LOOPGUARD_COLLECTOR_PORT: '10' }).listen).toEqual({ host: '::1', port: 10 });
    expect(problemsOf(() => loadCollectorConfig(undefined, { LOOPGUARD_COLLECTOR_LISTEN: '4319' }))).toEqual([
      'LOOPGUARD_COLLECTOR_LISTEN: expected host:port (e.g. 0.0.0.0:4319 or [::]:4319), got "4319"',
    ]);
    expect(problemsOf(() => loadCollectorConfig(undefined, { LOOPGUARD_COLLECTOR_LISTEN: 'h:99999' }))).toEqual([
      'listen.port (from LOOPGUARD_COLLECTOR_LISTEN): expected an integer from 0 to 65535, got "99999"',
    ]);
  });

  it('accepts an empty file', () => {
    expect(loadCollectorConfig(yamlFile(''), {})).toEqual(DEFAULTS);
  });
});
