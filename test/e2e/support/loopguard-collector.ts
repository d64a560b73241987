/**
 * The loopguard collector (`loopguard collector`) from this checkout, run from
 * source through tsx so e2e tests need no build step, on a free loopback port.
 */
import { join } from 'node:path';
import { REPO_ROOT } from './paths.js';
import { freePort } from './ports.js';
import { startService, type ServiceHandle } from './service.js';
import { httpOk } from './wait.js';

export interface StartLoopguardCollectorOptions {
  /** OTLP/HTTP base URL annotated spans are forwarded to (LOOPGUARD_COLLECTOR_FORWARD_ENDPOINT). */
  forwardEndpoint?: string;
  /** `--config FILE` */
  configPath?: string;
  /** More LOOPGUARD_COLLECTOR_* variables (queue size, auth token...). */
  env?: Readonly<Record<string, string>>;
  name?: string;
  readyTimeoutMs?: number;
  /** Node options before the script, e.g. `--inspect=127.0.0.1:PORT` to read its heap (support/inspector.ts). */
  nodeArgs?: readonly string[];
}

export interface LoopguardCollectorInstance {
  /** Base URL: POST /v1/traces, GET /metrics, /healthz, /v1/runs/{key}. */
  readonly url: string;
  readonly port: number;
  /** host:port, for a Prometheus target. */
  readonly target: string;
  readonly service: ServiceHandle;
  stop(): Promise<void>;
}

export async function startLoopguardCollector(options: StartLoopguardCollectorOptions = {}): Promise<LoopguardCollectorInstance> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = { LOOPGUARD_COLLECTOR_LISTEN: `127.0.0.1:${port}`, ...options.env };
  if (options.forwardEndpoint !== undefined) env.LOOPGUARD_COLLECTOR_FORWARD_ENDPOINT = options.forwardEndpoint;
  const service = await startService({
    name: options.name ?? 'loopguard-collector',
    command: process.execPath,
    args: [...(options.nodeArgs ?? []), '--import', 'tsx', join(REPO_ROOT, 'src', 'cli', 'bin.ts'), 'collector', ...(options.configPath ? ['--config', options.configPath] : [])],
    cwd: REPO_ROOT,
    env,
    isReady: () => httpOk(`${url}/healthz`),
    readyTimeoutMs: options.readyTimeoutMs ?? 60_000,
  });
  return { url, port, target: `127.0.0.1:${port}`, service, stop: () => service.stop() };
}

/** GET /v1/runs/{key}: the run's current verdict; undefined when the collector does not track it (404). */
export async function loopguardRunVerdict<T = Record<string, unknown>>(collectorUrl: string, runKey: string): Promise<T | undefined> {
  const url = `${collectorUrl}/v1/runs/${encodeURIComponent(runKey)}`;
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  if (response.status === 404) return undefined;
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}
