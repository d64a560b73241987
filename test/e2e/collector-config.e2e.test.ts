/**
 * Checks every file in collector-config/ with the real tools: promtool for the
 * Prometheus config and rules (and proof that the rule tests bite), the built
 * Collector's and Jaeger's `validate`, a real Prometheus running every PromQL
 * query of the Grafana dashboard and alert rules, and consistency checks of
 * docker-compose.yml and the TraceQL examples against the files and names
 * they refer to.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadCollectorConfig } from '../../src/collector/config.js';
import { DETECTOR_NAMES } from '../../src/config.js';
import { EXPECTED_REASONS } from '../../src/eval/corpus.js';
import * as semconv from '../../src/semconv.js';
import { LEVELS } from '../../src/types.js';
import {
  binaryPath,
  collectorConfigPath,
  prometheusQuery,
  runPromtool,
  startPrometheus,
  type PrometheusInstance,
  type PromtoolResult,
} from './support/index.js';

const readYaml = (path: string): unknown => parse(readFileSync(path, 'utf8'), { merge: true });

/**
 * Every metric name the configs may query: DESIGN §4's counters and gauge
 * (from semconv), the loopguard collector's own, and the count connector's.
 */
function promName(otelName: string, kind: 'counter' | 'gauge'): string {
  const base = otelName.replace(/\./g, '_');
  return kind === 'counter' ? `${base}_total` : base;
}
const KNOWN_METRICS = new Set([
  promName(semconv.METRIC_LOOPGUARD_DETECTIONS, 'counter'),
  promName(semconv.METRIC_LOOPGUARD_RUNS_STOPPED, 'counter'),
  promName(semconv.METRIC_LOOPGUARD_TOOL_CALLS, 'counter'),
  promName(semconv.METRIC_LOOPGUARD_RUNS_ENDED, 'counter'),
  promName(semconv.METRIC_LOOPGUARD_RUNS_ACTIVE, 'gauge'),
  'loopguard_collector_queue_size',
  'loopguard_collector_spans_received_total',
  'loopguard_collector_spans_forwarded_total',
  'loopguard_collector_spans_dropped_total',
  'loopguard_collector_requests_rejected_total',
  'loopguard_collector_runs_evicted_total',
  'loopguard_spanevents_loop_detected_total',
  'loopguard_spans_flagged_total',
]);

/** Metric names in a PromQL expression (label lists and matchers removed first: labels look alike). */
function metricNamesIn(expr: string): string[] {
  const withoutLabels = expr.replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '').replace(/\{[^}]*\}/g, '');
  return [...new Set(withoutLabels.match(/\bloopguard_[a-z_]+\b/g) ?? [])];
}

/** The `reason` values a query matches on `loopguard_runs_ended_total` (exact matchers only). */
function exitReasonsIn(expr: string): string[] {
  return [...expr.matchAll(/loopguard_runs_ended_total\{[^}]*\breason="([^"]+)"/g)].map((match) => match[1]!);
}

/** Grafana's macros and variables replaced by what Grafana would send. */
function asPlainPromql(expr: string): string {
  return expr.replaceAll('$__rate_interval', '1m').replaceAll('$__range', '1h').replaceAll('$job', '.*');
}

describe('Prometheus config and alert rules (promtool)', () => {
  const promDir = collectorConfigPath('prometheus');

  it('promtool check config and check rules accept them', () => {
    const config = runPromtool(['check', 'config', 'prometheus.yml'], promDir);
    expect(config.output).toContain('SUCCESS: 1 rule files found');
    expect(config.code).toBe(0);
    const rules = runPromtool(['check', 'rules', 'rules/loopguard.rules.yml'], promDir);
    expect(rules.output).toContain('SUCCESS: 7 rules found');
    expect(rules.code).toBe(0);
  });

  it('promtool test rules passes every unit test', () => {
    const tests = readdirSync(join(promDir, 'tests')).filter((name) => name.endsWith('.yml'));
    expect(tests.length).toBeGreaterThan(0);
    for (const file of tests) {
      const result = runPromtool(['test', 'rules', join('tests', file)], promDir);
      expect(result.output, result.output).toContain('SUCCESS');
      expect(result.code, result.output).toBe(0);
    }
  });

  /** promtool's verdict on the unit tests against a copy of the rules changed by `edit`. */
  function testEditedRules(edit: (rules: string) => string): PromtoolResult {
    const copy = mkdtempSync(join(tmpdir(), 'loopguard-promtool-'));
    try {
      cpSync(promDir, copy, { recursive: true });
      const rulesFile = join(copy, 'rules', 'loopguard.rules.yml');
      const rules = readFileSync(rulesFile, 'utf8');
      const edited = edit(rules);
      expect(edited).not.toBe(rules);
      writeFileSync(rulesFile, edited);
      return runPromtool(['test', 'rules', 'tests/loopguard.rules.test.yml'], copy);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }

  it('the rule unit tests fail when a threshold changes', () => {
    const result = testEditedRules((rules) => rules.replace('> 0.10', '> 0.30'));
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('alertname: LoopguardWarningRateHigh');
  });

  it('the rule unit tests fail when the budget share or the unverified reason changes', () => {
    const budget = testEditedRules((rules) => rules.replace(/(LoopguardBudgetStopsFrequent[\s\S]*?)> 0\.10/, '$1> 0.25'));
    expect(budget.code).not.toBe(0);
    expect(budget.output).toContain('alertname: LoopguardBudgetStopsFrequent');
    const unverified = testEditedRules((rules) => rules.replaceAll('reason="completed_unverified"', 'reason="completed"'));
    expect(unverified.code).not.toBe(0);
    expect(unverified.output).toContain('alertname: LoopguardUnverifiedCompletion');
  });

  it('alert rules only query known loopguard metrics', () => {
    const rules = readYaml(collectorConfigPath('prometheus', 'rules', 'loopguard.rules.yml')) as {
      groups: { rules: { alert: string; expr: string }[] }[];
    };
    const exprs = rules.groups.flatMap((group) => group.rules.map((rule) => rule.expr));
    for (const expr of exprs) {
      expect(metricNamesIn(expr).filter((name) => !KNOWN_METRICS.has(name)), expr).toEqual([]);
      for (const reason of exitReasonsIn(expr)) expect(EXPECTED_REASONS as readonly string[], expr).toContain(reason);
    }
  });
});

describe('Collector and Jaeger configs (validate with the built binaries)', () => {
  const requiredEnv = {
    LOOPGUARD_COLLECTOR_ENDPOINT: 'http://127.0.0.1:4319',
    JAEGER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
    LOOPGUARD_SIDECARS: '[127.0.0.1:14317, 127.0.0.1:24317]',
  };
  const validate = (binary: 'otelcol-loopguard' | 'jaeger', config: string, env: Record<string, string>) =>
    spawnSync(binaryPath(binary), ['validate', '--config', config], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 });

  it.each(['gateway.yaml', 'scale-out-lb.yaml', 'scale-out-sidecar.yaml'])('otelcol validate accepts otelcol/%s', (file) => {
    const result = validate('otelcol-loopguard', collectorConfigPath('otelcol', file), requiredEnv);
    expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
  });

  it('otelcol validate rejects the gateway without its loopguard endpoint', () => {
    const env = { ...requiredEnv, LOOPGUARD_COLLECTOR_ENDPOINT: '' };
    const result = validate('otelcol-loopguard', collectorConfigPath('otelcol', 'gateway.yaml'), env);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('otlp_http/loopguard');
  });

  it('jaeger validate accepts jaeger/config.yaml', () => {
    const result = validate('jaeger', collectorConfigPath('jaeger', 'config.yaml'), {});
    expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
  });

  it('every required ${env:...} of the Collector configs is documented in the README', () => {
    const readme = readFileSync(collectorConfigPath('README.md'), 'utf8');
    for (const file of ['gateway.yaml', 'scale-out-lb.yaml', 'scale-out-sidecar.yaml', '../jaeger/config.yaml']) {
      const text = readFileSync(collectorConfigPath('otelcol', file), 'utf8');
      for (const [, name] of text.matchAll(/\$\{env:([A-Z0-9_]+)/g)) expect(readme, `${file}: ${name}`).toContain(`\`${name}\``);
    }
  });
});

describe('Grafana provisioning', () => {
  let prometheus: PrometheusInstance;
  const datasources = readYaml(collectorConfigPath('grafana', 'provisioning', 'datasources', 'loopguard.yaml')) as {
    datasources: { uid: string; type: string; url: string }[];
  };
  const uids = new Map(datasources.datasources.map((source) => [source.uid, source.type]));

  interface Target {
    refId: string;
    datasource: { type: string; uid: string };
    expr?: string;
    queryType?: string;
    tags?: string;
  }
  const dashboard = JSON.parse(readFileSync(collectorConfigPath('grafana', 'dashboards', 'loopguard.json'), 'utf8')) as {
    uid: string;
    panels: {
      title: string;
      type: string;
      datasource?: { uid: string };
      targets?: Target[];
      fieldConfig?: { overrides?: { matcher: { id: string; options: string } }[] };
    }[];
  };
  const targets = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel: panel.title, target })));

  const alerting = readYaml(collectorConfigPath('grafana', 'provisioning', 'alerting', 'loopguard-alerts.yaml')) as {
    groups: {
      rules: { title: string; condition: string; data: { refId: string; datasourceUid: string; model: { expr?: string } }[] }[];
    }[];
  };
  const grafanaRules = alerting.groups.flatMap((group) => group.rules);

  beforeAll(async () => {
    prometheus = await startPrometheus(
      collectorConfigPath('prometheus', 'prometheus.yml'),
      collectorConfigPath('prometheus', 'rules', 'loopguard.rules.yml'),
    );
  });
  afterAll(async () => {
    await prometheus?.stop();
  });

  it('the dashboard has the panels the issue asks for, on provisioned data sources', () => {
    expect(targets.length).toBeGreaterThan(10);
    for (const { panel, target } of targets) expect(uids.get(target.datasource.uid), panel).toBe(target.datasource.type);
    const exprs = targets.map(({ target }) => target.expr ?? '').join('\n');
    expect(exprs).toMatch(/sum by \(detector, level\) \(rate\(loopguard_detections_total/);
    expect(exprs).toMatch(/sum by \(gen_ai_tool_name\) \(rate\(loopguard_detections_total/);
    expect(exprs).toMatch(/loopguard_runs_stopped_total/);
    expect(exprs).toMatch(/topk\(10, sum by \(gen_ai_tool_name\)/);
    expect(exprs).toMatch(/sum by \(reason\) \(increase\(loopguard_runs_ended_total/);
    expect(targets.flatMap(({ target }) => exitReasonsIn(target.expr ?? ''))).toEqual(expect.arrayContaining(['completed_unverified', 'budget']));
    for (const { panel, target } of targets) {
      for (const reason of exitReasonsIn(target.expr ?? '')) expect(EXPECTED_REASONS as readonly string[], panel).toContain(reason);
    }
    // The runs-by-reason panel picks out the two reasons to look at.
    const byReason = dashboard.panels.find((panel) => panel.targets?.some((target) => /sum by \(reason\) \(increase\(loopguard_runs_ended_total/.test(target.expr ?? '')));
    const highlighted = (byReason?.fieldConfig?.overrides ?? []).map((override) => override.matcher.options);
    expect(highlighted).toEqual(expect.arrayContaining(['completed_unverified', 'budget']));
    // Trace links: Jaeger searches whose trace ids open the runs.
    const jaegerSearches = targets.filter(({ target }) => target.datasource.type === 'jaeger').map(({ target }) => target.tags);
    expect(jaegerSearches).toEqual(['loopguard.run.stopped=true', 'loopguard.level=break']);
  });

  it('every dashboard PromQL query runs in Prometheus and names known metrics', async () => {
    const promql = targets.filter(({ target }) => target.expr !== undefined);
    for (const { panel, target } of promql) {
      expect(metricNamesIn(target.expr!).filter((name) => !KNOWN_METRICS.has(name)), panel).toEqual([]);
      await expect(prometheusQuery(prometheus.url, asPlainPromql(target.expr!)), panel).resolves.toBeInstanceOf(Array);
    }
  });

  it('Grafana alert rules mirror the Prometheus alerts and their queries run', async () => {
    const promRules = readYaml(collectorConfigPath('prometheus', 'rules', 'loopguard.rules.yml')) as {
      groups: { rules: { alert: string }[] }[];
    };
    const promAlerts = promRules.groups.flatMap((group) => group.rules.map((rule) => rule.alert)).sort();
    expect(grafanaRules.map((rule) => rule.title).sort()).toEqual(promAlerts);
    for (const rule of grafanaRules) {
      expect(rule.data.map((query) => query.refId), rule.title).toContain(rule.condition);
      for (const query of rule.data) {
        if (query.datasourceUid === '__expr__') continue;
        expect(uids.get(query.datasourceUid), rule.title).toBe('prometheus');
        expect(metricNamesIn(query.model.expr!).filter((name) => !KNOWN_METRICS.has(name)), rule.title).toEqual([]);
        await expect(prometheusQuery(prometheus.url, query.model.expr!), rule.title).resolves.toBeInstanceOf(Array);
      }
    }
  });
});

describe('docker-compose.yml', () => {
  interface ComposeService {
    image: string;
    command?: string[];
    volumes?: string[];
    environment?: Record<string, string>;
    depends_on?: string[];
  }
  const composePath = collectorConfigPath('docker-compose.yml');
  const compose = readYaml(composePath) as { services: Record<string, ComposeService> };
  const services = Object.entries(compose.services);

  it('parses as YAML with services', () => {
    expect(services.map(([name]) => name)).toEqual(
      expect.arrayContaining(['jaeger', 'otelcol', 'loopguard-collector', 'prometheus', 'grafana', 'otelcol-lb', 'loopguard-collector-1', 'loopguard-collector-2']),
    );
    for (const [name, service] of services) expect(service.image, name).toMatch(/^[a-z0-9./-]+:[\w.-]+$/);
  });

  it('mounts only files that exist, and every config a command names is mounted', () => {
    for (const [name, service] of services) {
      const mounts = new Map<string, string>();
      for (const volume of service.volumes ?? []) {
        const [host, container] = volume.split(':') as [string, string];
        const hostPath = resolve(dirname(composePath), host);
        expect(existsSync(hostPath), `${name}: ${host}`).toBe(true);
        mounts.set(container, hostPath);
      }
      for (const argument of service.command ?? []) {
        const path = argument.match(/(\/etc\/[^\s=]+\.ya?ml)$/)?.[1];
        if (path) expect([...mounts.keys()].some((container) => path.startsWith(container)), `${name}: ${path}`).toBe(true);
      }
    }
  });

  it('runs the loopguard collectors with the package bin and an environment the collector accepts', () => {
    const packageJson = JSON.parse(readFileSync(resolve(dirname(composePath), '..', 'package.json'), 'utf8')) as { bin: Record<string, string> };
    const bin = packageJson.bin.loopguard!.replace(/^\.\//, '');
    const collectors = services.filter(([name]) => name.startsWith('loopguard-collector'));
    expect(collectors.length).toBe(3);
    for (const [name, service] of collectors) {
      expect(service.command, name).toEqual(['node', bin, 'collector']);
      const config = loadCollectorConfig(undefined, { ...service.environment });
      expect(config.listen, name).toEqual({ host: '0.0.0.0', port: 4319 });
      // A bare base URL gets the OTLP traces path, which the gateway's otlp/annotated receiver serves.
      expect(config.forward.endpoint, name).toBe(`${service.environment?.LOOPGUARD_COLLECTOR_FORWARD_ENDPOINT}/v1/traces`);
    }
  });

  it('sets every environment variable the mounted Collector configs require', () => {
    for (const [name, service] of services) {
      for (const volume of service.volumes ?? []) {
        const host = resolve(dirname(composePath), volume.split(':')[0]!);
        if (!host.includes(`${join('collector-config', 'otelcol')}`)) continue;
        const required = [...readFileSync(host, 'utf8').matchAll(/\$\{env:([A-Z0-9_]+)\}/g)].map((match) => match[1]!);
        expect(required.length, `${name}`).toBeGreaterThan(0);
        for (const variable of required) expect(service.environment?.[variable], `${name}: ${variable}`).toBeTruthy();
      }
    }
  });

  it('points services, Prometheus targets and Grafana data sources at compose services', () => {
    const names = new Set(services.map(([name]) => name));
    for (const [name, service] of services) {
      for (const dependency of service.depends_on ?? []) expect(names.has(dependency), `${name} -> ${dependency}`).toBe(true);
      for (const value of Object.values(service.environment ?? {})) {
        for (const [, host] of String(value).matchAll(/(?:^|[\s[,/])([a-z][a-z0-9-]*):\d+/g)) expect(names.has(host!), `${name}: ${value}`).toBe(true);
      }
    }
    const targetDir = collectorConfigPath('prometheus', 'targets');
    for (const file of readdirSync(targetDir)) {
      const groups = JSON.parse(readFileSync(join(targetDir, file), 'utf8')) as { targets: string[] }[];
      for (const target of groups.flatMap((group) => group.targets)) expect(names.has(target.split(':')[0]!), `${file}: ${target}`).toBe(true);
    }
    const promConfig = readYaml(collectorConfigPath('prometheus', 'prometheus.yml')) as {
      scrape_configs: { job_name: string; file_sd_configs: { files: string[] }[] }[];
    };
    for (const scrape of promConfig.scrape_configs) {
      for (const file of scrape.file_sd_configs.flatMap((sd) => sd.files)) {
        expect(existsSync(join(collectorConfigPath('prometheus'), file)), `${scrape.job_name}: ${file}`).toBe(true);
      }
    }
    for (const source of datasources()) expect(names.has(new URL(source.url).hostname), source.url).toBe(true);
    const provider = readYaml(collectorConfigPath('grafana', 'provisioning', 'dashboards', 'loopguard.yaml')) as {
      providers: { options: { path: string } }[];
    };
    const grafanaMounts = (compose.services.grafana?.volumes ?? []).map((volume) => volume.split(':')[1]);
    expect(grafanaMounts).toContain(provider.providers[0]!.options.path);
  });

  function datasources(): { url: string }[] {
    return (readYaml(collectorConfigPath('grafana', 'provisioning', 'datasources', 'loopguard.yaml')) as { datasources: { url: string }[] })
      .datasources;
  }
});

describe('TraceQL examples for Tempo', () => {
  const markdown = readFileSync(collectorConfigPath('tempo', 'traceql-examples.md'), 'utf8');
  const queries = [...markdown.matchAll(/```traceql\n([\s\S]*?)```/g)].map((match) => match[1]!.trim());
  const loopguardNames = new Set<string>(Object.values(semconv));

  it('has examples, each with balanced braces and parentheses', () => {
    expect(queries.length).toBeGreaterThanOrEqual(10);
    expect(queries).toContain('{ span.loopguard.level = "break" }');
    for (const query of queries) {
      for (const [open, close] of [['{', '}'], ['(', ')']] as const) {
        expect(query.split(open).length, query).toBe(query.split(close).length);
      }
    }
  });

  it('names only attributes loopguard and the GenAI conventions define, with values they use', () => {
    for (const query of queries) {
      for (const [, scope, name] of query.matchAll(/\b(span|event|resource)\.([a-z_][a-z0-9_.]*[a-z0-9_])/g)) {
        if (scope === 'resource') expect(name, query).toBe('service.name');
        else expect(loopguardNames.has(name!), `${query}: ${scope}.${name}`).toBe(true);
      }
      for (const [, value] of query.matchAll(/event\.loopguard\.detector = "([^"]+)"/g)) {
        expect(DETECTOR_NAMES as readonly string[], query).toContain(value);
      }
      for (const [, value] of query.matchAll(/span\.loopguard\.level =~? "([^"]+)"/g)) {
        for (const level of value!.split('|')) expect(LEVELS as readonly string[], query).toContain(level);
      }
      for (const [, value] of query.matchAll(/event:name = "([^"]+)"/g)) expect(value, query).toBe(semconv.EVENT_LOOPGUARD_LOOP_DETECTED);
    }
  });
});
