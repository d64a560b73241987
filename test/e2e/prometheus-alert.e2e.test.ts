/**
 * Scenario: Prometheus (collector-config/prometheus/prometheus.yml, the
 * committed alert rules) scrapes the loopguard collector's /metrics. A normal
 * agent makes no alert fire; a looping agent, stopped through its verdict,
 * makes `LoopguardRunStopped` fire while the agent process is still up, read
 * from Prometheus's /api/v1/alerts.
 *
 * Scrape and evaluation run every second. The rules are a test copy of the
 * committed file in which LoopguardRunStopped fires at once (`for: 0s`), so
 * the test does not depend on a production `for:` clause; every other rule
 * is loaded as committed.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { nodeAgent, runAgent, startAgent, type RunningAgent } from './scenarios/agent-process.js';
import { startPrometheusOnCollector, waitForFiring } from './scenarios/prometheus-on-collector.js';
import { rulesFiringAtOnce, type RulesCopy } from './scenarios/prometheus-rules.js';
import { trackServices } from './scenarios/running-services.js';
import {
  collectorConfigPath,
  getJson,
  prometheusAlerts,
  prometheusQuery,
  startLoopguardCollector,
  waitFor,
  type LoopguardCollectorInstance,
  type PrometheusInstance,
} from './support/index.js';

interface AgentLine {
  type: 'run' | 'done' | 'holding';
  mode?: 'looping' | 'normal';
  traceId?: string;
  toolCalls?: number;
  stopped?: boolean;
  verdict?: { stopped: boolean; stopReason: string | null; level: string | null };
  exportedSpans?: number;
  failedSpans?: number;
}

const services = trackServices();
const agents: RunningAgent<AgentLine>[] = [];
let rules: RulesCopy | undefined;
let loopguard: LoopguardCollectorInstance;
let prometheus: PrometheusInstance;

beforeAll(async () => {
  try {
    await services.starting(async () => {
      rules = rulesFiringAtOnce(collectorConfigPath('prometheus', 'rules', 'loopguard.rules.yml'), ['LoopguardRunStopped']);
      // Analyse only: this scenario is about metrics, not traces.
      loopguard = services.add(await startLoopguardCollector());
      prometheus = services.add(await startPrometheusOnCollector(loopguard, rules.path));
    });
  } catch (error) {
    rules?.remove();
    throw error;
  }
});

afterEach(async () => {
  await Promise.all(agents.map((agent) => agent.kill()));
});

afterAll(async () => {
  await Promise.all(agents.map((agent) => agent.kill()));
  rules?.remove();
});

/** Unix seconds of the latest evaluation of every rule group. */
async function lastEvaluations(): Promise<number[]> {
  const body = await getJson<{ data: { groups: { name: string; lastEvaluation: string }[] } }>(`${prometheus.url}/api/v1/rules`);
  return body.data.groups.map((group) => Date.parse(group.lastEvaluation) / 1000);
}

/** Resolves once every rule group was evaluated at least `rounds` times after `since` (unix seconds). */
async function waitForEvaluations(since: number, rounds: number): Promise<void> {
  await waitFor(async () => (await lastEvaluations()).every((at) => at >= since + rounds), {
    description: `${rounds} rule evaluations after ${new Date(since * 1000).toISOString()}`,
    timeoutMs: 30_000,
  });
}

async function scalar(expr: string): Promise<number> {
  const result = await prometheusQuery(prometheus.url, expr);
  return result.length === 0 ? 0 : Number(result[0]!.value[1]);
}

describe('Prometheus scraping the loopguard collector, with the committed alert rules', () => {
  it('LoopguardRunStopped does not fire for a normal agent', async () => {
    const service = `e2e-prom-normal-${randomUUID().slice(0, 8)}`;
    const steps = 10;
    const { lines } = await runAgent<AgentLine>({
      ...nodeAgent('genai-agent (normal)', 'genai-agent.ts', ['--endpoint', loopguard.url, '--service', service, '--normal', '3', '--steps', String(steps), '--verdict-url', loopguard.url]),
      timeoutMs: 60_000,
    });
    const runs = lines.filter((line) => line.type === 'run');
    expect(runs.map((run) => run.stopped)).toEqual([false, false, false]);

    // Prometheus has the agent's calls...
    await waitFor(async () => (await scalar('sum(loopguard_tool_calls_total)')) === 3 * steps, {
      description: `loopguard_tool_calls_total = ${3 * steps} in Prometheus`,
    });
    // ...and evaluated the rules on them a few times: nothing fires, nothing is pending.
    await waitForEvaluations(Date.now() / 1000, 3);
    expect(await prometheusAlerts(prometheus.url)).toEqual([]);
    expect(await scalar('sum(loopguard_runs_stopped_total)')).toBe(0);
    expect(await scalar('sum(loopguard_detections_total)')).toBe(0);
  });

  it('LoopguardRunStopped fires while a looping agent runs, with the stop reason', async () => {
    const service = `e2e-prom-looping-${randomUUID().slice(0, 8)}`;
    const agent = startAgent<AgentLine>({
      // Obeys its verdict (stops the run when told), then stays up like an agent service waiting for work.
      ...nodeAgent('genai-agent (looping)', 'genai-agent.ts', [
        '--endpoint', loopguard.url, '--service', service, '--looping', '1', '--steps', '30',
        '--verdict-url', loopguard.url, '--hold-ms', '120000',
      ]),
      timeoutMs: 150_000,
    });
    agents.push(agent);
    const run = await Promise.race([
      waitFor(() => agent.lines.find((line) => line.type === 'run'), { description: 'the looping agent to finish its run', timeoutMs: 60_000 }),
      // An agent that fails rejects with its output; one that exits at all has not held as told.
      agent.done.then(() => Promise.reject(new Error('the looping agent exited instead of holding'))),
    ]);
    expect(run).toMatchObject({ stopped: true, verdict: { stopped: true, level: 'break' } });
    expect(run.toolCalls).toBeLessThan(30);
    const reason = run.verdict!.stopReason!;

    const firing = await waitForFiring(prometheus, 'LoopguardRunStopped');
    // Still running: the alert came while the agent was up.
    expect(agent.alive).toBe(true);
    const stopped = firing.filter((alert) => alert.labels.alertname === 'LoopguardRunStopped');
    expect(stopped).toHaveLength(1);
    expect(stopped[0]).toMatchObject({
      state: 'firing',
      labels: { alertname: 'LoopguardRunStopped', job: 'loopguard-collector', reason, severity: 'warning' },
    });
    expect(stopped[0]!.annotations.summary).toContain(reason);
    // One stopped run: the tool-looping-across-runs alert (3 runs) and the collector alerts stay quiet.
    expect(firing.map((alert) => alert.labels.alertname)).toEqual(['LoopguardRunStopped']);
    expect(await scalar(`sum(loopguard_runs_stopped_total{reason="${reason}"})`)).toBe(1);
    expect(await scalar('sum(loopguard_detections_total{level="break"})')).toBe(1);
  });
});
