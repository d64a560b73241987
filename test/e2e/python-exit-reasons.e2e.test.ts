/**
 * Scenario: why each run of an agent written in Python ended. The Python
 * agent (OpenTelemetry Python SDK, no loopguard) sends its spans to the
 * loopguard collector, which stamps `loopguard.run.exit_reason` on each run's
 * root span, forwards it to Jaeger and counts `loopguard_runs_ended_total`;
 * Prometheus scrapes that with the committed rules loaded.
 *
 * The collector runs with a tool-call fuse (`maxToolCalls`) well above where
 * the looping agent is stopped and above the clean run's length, so a longer
 * clean run is stopped by the budget. A deploying agent whose health check of
 * a real local service fails, and which finishes without a passing re-check,
 * ends completed_unverified (the completion gate as the collector applies it:
 * it cannot ask the agent to verify, it stamps the root span); re-checked
 * green, it ends completed. The four reasons a remote agent can get without
 * an in-process hook, each read back from Jaeger and Prometheus.
 *
 * Prometheus loads a test copy of the rules in which LoopguardBudgetStopsFrequent
 * fires at once (`for: 0s`); its 30-minute share is computed as committed.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgent } from './scenarios/agent-process.js';
import { rootSpan, toolSpans, waitForWholeTrace } from './scenarios/jaeger-runs.js';
import { startPrometheusOnCollector, waitForFiring } from './scenarios/prometheus-on-collector.js';
import { rulesFiringAtOnce, type RulesCopy } from './scenarios/prometheus-rules.js';
import { pythonAgent, splitPythonRun, type PythonAgentLine, type PythonRunLine, type PythonStepLine } from './scenarios/python-agent.js';
import { ensurePythonEnv, type PythonEnv } from './scenarios/python-env.js';
import { trackServices } from './scenarios/running-services.js';
import {
  collectorConfigPath,
  jaegerEvents,
  jaegerTag,
  prometheusQuery,
  startJaeger,
  startLoopguardCollector,
  waitFor,
  type JaegerInstance,
  type JaegerSpan,
  type LoopguardCollectorInstance,
  type PrometheusInstance,
} from './support/index.js';

/** The collector's tool-call fuse: above the looping agent's stop and the clean run, below the long run. */
const MAX_TOOL_CALLS = 15;

const services = trackServices();
let python: PythonEnv;
let jaeger: JaegerInstance;
let loopguard: LoopguardCollectorInstance;
let prometheus: PrometheusInstance;
let rules: RulesCopy | undefined;

beforeAll(async () => {
  python = ensurePythonEnv();
  try {
    await services.starting(async () => {
      rules = rulesFiringAtOnce(collectorConfigPath('prometheus', 'rules', 'loopguard.rules.yml'), ['LoopguardBudgetStopsFrequent']);
      jaeger = services.add(await startJaeger());
      loopguard = services.add(
        await startLoopguardCollector({
          forwardEndpoint: jaeger.otlpHttpUrl,
          env: {
            LOOPGUARD_COLLECTOR_BATCH_INTERVAL_MS: '100',
            LOOPGUARD_COLLECTOR_DETECTION: JSON.stringify({ maxToolCalls: MAX_TOOL_CALLS }),
          },
        }),
      );
      prometheus = services.add(await startPrometheusOnCollector(loopguard, rules.path));
    });
  } catch (error) {
    rules?.remove();
    throw error;
  }
}, 420_000);

afterAll(() => rules?.remove());

async function agentRun(mode: 'looping' | 'normal' | 'deploy', extra: readonly string[]): Promise<{ steps: PythonStepLine[]; run: PythonRunLine }> {
  const service = `e2e-python-exit-${mode}-${randomUUID().slice(0, 8)}`;
  const { lines } = await runAgent<PythonAgentLine>(pythonAgent(python, loopguard.url, service, mode, extra));
  return splitPythonRun(lines);
}

async function run(mode: 'looping' | 'normal', maxSteps: number): Promise<PythonRunLine> {
  return (await agentRun(mode, ['--max-steps', String(maxSteps)])).run;
}

/** The run's whole trace in Jaeger (root plus one span per tool call). */
async function traceInJaeger(run: PythonRunLine): Promise<{ root: JaegerSpan; tools: JaegerSpan[] }> {
  const trace = await waitForWholeTrace(jaeger.queryUrl, run.trace_id, run.tool_calls + 1);
  return { root: rootSpan(trace), tools: toolSpans(trace) };
}

async function exitReasonInJaeger(run: PythonRunLine): Promise<unknown> {
  return jaegerTag((await traceInJaeger(run)).root, 'loopguard.run.exit_reason');
}

/** The subject loopguard infers for a health check of `url`: the service's host and port. */
function serviceSubject(url: unknown): string {
  const { hostname, port } = new URL(String(url));
  return `service://${hostname}:${port}`;
}

/** `loopguard_runs_ended_total` by reason, as Prometheus has it now. */
async function endedInPrometheus(): Promise<Record<string, number>> {
  const samples = await prometheusQuery(prometheus.url, 'sum by (reason) (loopguard_runs_ended_total)');
  return Object.fromEntries(samples.map((sample) => [sample.metric.reason!, Number(sample.value[1])]));
}

async function waitForEnded(expected: Record<string, number>): Promise<void> {
  await waitFor(async () => JSON.stringify(await endedInPrometheus()) === JSON.stringify(expected), {
    description: `loopguard_runs_ended_total in Prometheus = ${JSON.stringify(expected)}`,
    timeoutMs: 30_000,
  });
}

describe('why runs of a Python agent ended: loopguard collector -> Jaeger and Prometheus', () => {
  it('a clean run ends completed and a looping one loop_break, on the root span in Jaeger and in loopguard_runs_ended_total', async () => {
    const clean = await run('normal', 6);
    expect(clean).toMatchObject({ tool_calls: 6, stopped: false, failed_spans: 0 });
    expect(await exitReasonInJaeger(clean)).toBe('completed');

    const looping = await run('looping', 30);
    expect(looping.stopped).toBe(true);
    expect(looping.tool_calls).toBeLessThan(MAX_TOOL_CALLS);
    expect(looping.verdict?.stopReason).not.toBe('budget');
    expect(await exitReasonInJaeger(looping)).toBe('loop_break');

    await waitForEnded({ completed: 1, loop_break: 1 });
  });

  it('runs stopped by the tool-call budget end budget, and LoopguardBudgetStopsFrequent fires; nothing ended unverified', async () => {
    const first = await run('normal', 30);
    expect(first).toMatchObject({ stopped: true, verdict: { stopped: true, stopReason: 'budget' } });
    expect(first.tool_calls).toBeLessThanOrEqual(MAX_TOOL_CALLS + 1);
    expect(await exitReasonInJaeger(first)).toBe('budget');
    // A series is born with its first increment, which increase() cannot see:
    // the share counts from the second budget stop on, once Prometheus has the first.
    await waitForEnded({ budget: 1, completed: 1, loop_break: 1 });
    const second = await run('normal', 30);
    expect(second.verdict?.stopReason).toBe('budget');
    expect(await exitReasonInJaeger(second)).toBe('budget');
    await waitForEnded({ budget: 2, completed: 1, loop_break: 1 });

    const firing = await waitForFiring(prometheus, 'LoopguardBudgetStopsFrequent');
    const budget = firing.filter((alert) => alert.labels.alertname === 'LoopguardBudgetStopsFrequent');
    expect(budget).toHaveLength(1);
    expect(budget[0]).toMatchObject({ labels: { job: 'loopguard-collector', severity: 'warning' } });
    // Two of four ended runs, over what Prometheus saw of the window.
    expect(Number(budget[0]!.value)).toBeGreaterThan(0.1);
    expect(budget[0]!.annotations.summary).toMatch(/% of agent runs stopped by a budget$/);
    expect(firing.map((alert) => alert.labels.alertname)).not.toContain('LoopguardUnverifiedCompletion');
  });

  it('a run that finishes after a failed health check, never re-checked, ends completed_unverified naming the service, and LoopguardUnverifiedCompletion fires; re-checked green it ends completed', async () => {
    const unverified = await agentRun('deploy', []);
    expect(unverified.run).toMatchObject({ stopped: false, failed_spans: 0 });
    // The one failure is the first health check (nothing listened yet); no check follows the restart.
    expect(unverified.steps.map((step) => [step.tool, step.error === null])).toEqual([
      ['check_health', false],
      ['read_page', true],
      ['restart_service', true],
    ]);
    expect(unverified.steps[0]!.error).toMatch(/refused/i);
    const subject = serviceSubject(unverified.steps[0]!.args.url);

    const { root, tools } = await traceInJaeger(unverified.run);
    // The failed call reached the collector as the Python SDK exported it: status ERROR, no result.
    expect(jaegerTag(tools[0]!, 'otel.status_code')).toBe('ERROR');
    expect(jaegerTag(tools[0]!, 'gen_ai.tool.call.result')).toBeUndefined();
    expect(jaegerTag(root, 'loopguard.run.exit_reason')).toBe('completed_unverified');
    expect(jaegerTag(root, 'loopguard.run.unresolved_failures')).toBe(1);
    const events = jaegerEvents(root, 'loopguard.unresolved_failures');
    expect(events).toHaveLength(1);
    expect(events[0]!['loopguard.count']).toBe(1);
    // Jaeger shows an array attribute as its JSON text; the arguments were on the span, so the subject is named, not hashed.
    expect(JSON.parse(String(events[0]!['loopguard.subjects']))).toEqual([subject]);

    await waitForEnded({ budget: 2, completed: 1, completed_unverified: 1, loop_break: 1 });
    const firing = await waitForFiring(prometheus, 'LoopguardUnverifiedCompletion');
    const alert = firing.filter((one) => one.labels.alertname === 'LoopguardUnverifiedCompletion');
    expect(alert).toHaveLength(1);
    expect(alert[0]).toMatchObject({ labels: { job: 'loopguard-collector', severity: 'warning' } });
    expect(alert[0]!.annotations.summary).toBe('an agent run finished with an unresolved failure');

    const verified = await agentRun('deploy', ['--recheck']);
    expect(verified.steps.map((step) => [step.tool, step.error === null])).toEqual([
      ['check_health', false],
      ['read_page', true],
      ['restart_service', true],
      ['check_health', true],
    ]);
    expect(serviceSubject(verified.steps[3]!.args.url)).toBe(serviceSubject(verified.steps[0]!.args.url));
    const green = (await traceInJaeger(verified.run)).root;
    expect(jaegerTag(green, 'loopguard.run.exit_reason')).toBe('completed');
    expect(jaegerTag(green, 'loopguard.run.unresolved_failures')).toBeUndefined();
    expect(jaegerEvents(green, 'loopguard.unresolved_failures')).toEqual([]);
    await waitForEnded({ budget: 2, completed: 2, completed_unverified: 1, loop_break: 1 });
  });
});
