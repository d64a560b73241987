/**
 * The trace backend of the collector durability scenarios: the Go
 * OpenTelemetry Collector (fixtures/otelcol-backend.yaml) acknowledging
 * only what the span sink behind it received, so it can be stopped and
 * started again on the same port without losing what it acknowledged.
 */
import { join } from 'node:path';
import { REPO_ROOT, freePorts, startOtelcol, OTELCOL_PORT_VARIABLES, type OtelcolInstance } from '../support/index.js';
import type { SpanSink } from './span-sink.js';

const BACKEND_CONFIG = join(REPO_ROOT, 'test', 'e2e', 'fixtures', 'otelcol-backend.yaml');

export interface CollectorBackend {
  /** The OTLP/HTTP base URL the loopguard collector forwards to; the same across restarts. */
  readonly url: string;
  /** The running instance, undefined while stopped. */
  readonly instance: OtelcolInstance | undefined;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Picks its ports now; starts nothing until start(), so a test can forward to a backend that is down. */
export async function collectorBackend(sink: SpanSink): Promise<CollectorBackend> {
  const ports = await freePorts(OTELCOL_PORT_VARIABLES.length);
  const env: Record<string, string> = { E2E_SINK_ENDPOINT: sink.url };
  OTELCOL_PORT_VARIABLES.forEach((variable, index) => (env[variable] = String(ports[index])));
  let instance: OtelcolInstance | undefined;
  return {
    url: `http://127.0.0.1:${env.OTELCOL_AGENTS_HTTP_PORT}`,
    get instance() {
      return instance;
    },
    async start() {
      if (instance) throw new Error('the backend is already running');
      instance = await startOtelcol(BACKEND_CONFIG, env, { name: 'otelcol-backend' });
    },
    async stop() {
      await instance?.stop();
      instance = undefined;
    },
  };
}
