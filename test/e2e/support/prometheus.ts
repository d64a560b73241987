/**
 * Prometheus (Debian package, via scripts/e2e/install.sh) started with a copy
 * of collector-config/prometheus/prometheus.yml in a temp dir: fast scrape and
 * evaluation intervals, the given rule files, and file_sd target files that
 * point at the services the test started on 127.0.0.1.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { binaryPath } from './paths.js';
import { freePort } from './ports.js';
import { startService, type ServiceHandle } from './service.js';
import { getJson, httpOk } from './wait.js';

export interface StartPrometheusOptions {
  /** Scrape targets (host:port) per job_name of the config; jobs not listed get none. */
  targets?: Readonly<Record<string, readonly string[]>>;
  /** Default '1s' for tests (the committed config says 15s). */
  scrapeInterval?: string;
  /** Default '1s'. */
  evaluationInterval?: string;
  readyTimeoutMs?: number;
}

export interface PrometheusInstance {
  readonly url: string;
  readonly port: number;
  /** The config actually loaded (rewritten copy). */
  readonly configFile: string;
  readonly service: ServiceHandle;
  stop(): Promise<void>;
}

interface ScrapeConfig {
  job_name: string;
  file_sd_configs?: { files: string[] }[];
  static_configs?: unknown[];
}

interface PrometheusConfig {
  global?: Record<string, unknown>;
  rule_files?: string[];
  scrape_configs?: ScrapeConfig[];
}

export async function startPrometheus(
  configPath: string,
  rulesPath: string | readonly string[],
  options: StartPrometheusOptions = {},
): Promise<PrometheusInstance> {
  const config = parse(readFileSync(configPath, 'utf8')) as PrometheusConfig;
  if (config === null || typeof config !== 'object') throw new Error(`startPrometheus: ${configPath} is not a YAML mapping`);
  const workDir = mkdtempSync(join(tmpdir(), 'loopguard-e2e-prometheus-'));
  let configFile: string;
  try {
    config.global = {
      ...config.global,
      scrape_interval: options.scrapeInterval ?? '1s',
      evaluation_interval: options.evaluationInterval ?? '1s',
    };
    config.rule_files = (typeof rulesPath === 'string' ? [rulesPath] : [...rulesPath]).map((path) => resolve(path));

    const jobs = new Map((config.scrape_configs ?? []).map((scrape) => [scrape.job_name, scrape]));
    for (const job of Object.keys(options.targets ?? {})) {
      if (!jobs.has(job)) {
        throw new Error(`startPrometheus: options.targets has job '${job}', but ${configPath} defines only: ${[...jobs.keys()].join(', ')}`);
      }
    }
    for (const [job, scrape] of jobs) {
      const targets = options.targets?.[job] ?? [];
      if (scrape.file_sd_configs === undefined) {
        if (targets.length > 0) throw new Error(`startPrometheus: job '${job}' has no file_sd_configs, its targets cannot be set`);
        continue;
      }
      // Target files stay relative to the config, as in the committed file.
      for (const sd of scrape.file_sd_configs) {
        for (const file of sd.files) {
          const path = join(workDir, file);
          mkdirSync(dirname(path), { recursive: true });
          writeFileSync(path, JSON.stringify(targets.length > 0 ? [{ targets, labels: { deployment: 'e2e' } }] : []));
        }
      }
    }
    configFile = join(workDir, 'prometheus.yml');
    writeFileSync(configFile, stringify(config));
  } catch (error) {
    rmSync(workDir, { recursive: true, force: true });
    throw error;
  }

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const service = await startService({
    name: 'prometheus',
    command: binaryPath('prometheus'),
    args: [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(workDir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--storage.tsdb.retention.time=1h',
    ],
    workDir,
    removeWorkDirOnStop: true,
    isReady: () => httpOk(`${url}/-/ready`),
    readyTimeoutMs: options.readyTimeoutMs ?? 60_000,
  });
  return { url, port, configFile, service, stop: () => service.stop() };
}

// --- HTTP API ---

interface ApiResponse<T> {
  status: 'success' | 'error';
  data: T;
  errorType?: string;
  error?: string;
}

async function api<T>(url: string): Promise<T> {
  let body: ApiResponse<T>;
  try {
    body = await getJson<ApiResponse<T>>(url);
  } catch (error) {
    // Prometheus answers 400/422 with a JSON error body; getJson puts it in the message.
    throw new Error(`Prometheus API ${url} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (body.status !== 'success') throw new Error(`Prometheus API ${url}: ${body.errorType}: ${body.error}`);
  return body.data;
}

export interface PrometheusSample {
  metric: Record<string, string>;
  /** [unix seconds, value as text] */
  value: [number, string];
}

/** An instant query; returns the vector (throws on a PromQL error, with Prometheus's message). */
export async function prometheusQuery(url: string, expr: string): Promise<PrometheusSample[]> {
  const data = await api<{ resultType: string; result: PrometheusSample[] | [number, string] }>(
    `${url}/api/v1/query?${new URLSearchParams({ query: expr }).toString()}`,
  );
  if (data.resultType === 'vector') return data.result as PrometheusSample[];
  if (data.resultType === 'scalar') return [{ metric: {}, value: data.result as [number, string] }];
  throw new Error(`prometheusQuery: unexpected result type ${data.resultType} for ${expr}`);
}

export interface PrometheusAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: 'pending' | 'firing';
  activeAt: string;
  value: string;
}

/** GET /api/v1/alerts: pending and firing alerts. */
export async function prometheusAlerts(url: string): Promise<PrometheusAlert[]> {
  return (await api<{ alerts: PrometheusAlert[] }>(`${url}/api/v1/alerts`)).alerts;
}

export interface PrometheusRuleGroup {
  name: string;
  file: string;
  rules: { name: string; type: 'alerting' | 'recording'; query: string; health: string; lastError?: string; state?: string }[];
}

/** GET /api/v1/rules: the loaded rule groups with each rule's health. */
export async function prometheusRules(url: string): Promise<PrometheusRuleGroup[]> {
  return (await api<{ groups: PrometheusRuleGroup[] }>(`${url}/api/v1/rules`)).groups;
}

export interface PrometheusTarget {
  labels: Record<string, string>;
  scrapePool: string;
  scrapeUrl: string;
  health: 'up' | 'down' | 'unknown';
  lastError: string;
}

/** GET /api/v1/targets: active targets with their last scrape's health. */
export async function prometheusTargets(url: string): Promise<PrometheusTarget[]> {
  return (await api<{ activeTargets: PrometheusTarget[] }>(`${url}/api/v1/targets`)).activeTargets;
}
