/**
 * Scenario: scale-out. A first-tier Collector with the load_balancing
 * exporter (collector-config/otelcol/scale-out-lb.yaml, routing_key traceID)
 * in front of two loopguard collectors, each behind its OTLP/gRPC -> HTTP
 * sidecar (scale-out-sidecar.yaml), both forwarding to one Jaeger.
 *
 * One agent process runs 200 runs at once, half of them looping, with their
 * steps interleaved so every export batch mixes spans of many runs and every
 * run spans several batches. Then:
 * - every looping run was detected exactly once: one replica stopped it (the
 *   replicas' loopguard_runs_stopped_total add up to 100, exactly one replica
 *   knows each run), and its trace in Jaeger has the break;
 * - each replica saw each of its runs in order: steps numbered 1..n, and the
 *   root span, which ends last, summarising the whole run;
 * - no normal run was flagged, on either replica or in Jaeger;
 * - no span was lost between the agent and Jaeger: every trace holds as many
 *   spans as the agent sent, and the replicas received and forwarded them all.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { trackServices } from './scenarios/running-services.js';
import { nodeAgent, runAgent } from './scenarios/agent-process.js';
import { rootSpan, toolSpans } from './scenarios/jaeger-runs.js';
import { sampleValue, scrape } from './scenarios/prometheus-text.js';
import {
  collectorConfigPath,
  jaegerEvents,
  jaegerFindTraces,
  jaegerTag,
  loopguardRunVerdict,
  startJaeger,
  startLoopguardCollector,
  startOtelcol,
  waitFor,
  type JaegerInstance,
  type JaegerTrace,
  type LoopguardCollectorInstance,
  type OtelcolInstance,
} from './support/index.js';

const LOOPING_RUNS = 100;
const NORMAL_RUNS = 100;
const STEPS = 10;

interface AgentLine {
  type: 'run' | 'done';
  mode: 'looping' | 'normal';
  traceId: string;
  toolCalls: number;
  spans: number;
  exportedSpans: number;
  failedSpans: number;
}

interface Verdict {
  runKey: string;
  toolCalls: number;
  level: string | null;
  detections: number;
  stopped: boolean;
}

const services = trackServices(40);
let jaeger: JaegerInstance;
const replicas: LoopguardCollectorInstance[] = [];
let balancer: OtelcolInstance;

beforeAll(async () => {
  await services.starting(async () => {
    jaeger = await startJaeger();
    services.add(jaeger);
    const sidecars: OtelcolInstance[] = [];
    for (const index of [1, 2]) {
      const replica = await startLoopguardCollector({
        name: `loopguard-collector-${index}`,
        forwardEndpoint: jaeger.otlpHttpUrl,
        env: { LOOPGUARD_COLLECTOR_BATCH_INTERVAL_MS: '100' },
      });
      services.add(replica);
      replicas.push(replica);
      const sidecar = await startOtelcol(collectorConfigPath('otelcol', 'scale-out-sidecar.yaml'), { LOOPGUARD_COLLECTOR_ENDPOINT: replica.url }, { name: `otelcol-sidecar-${index}` });
      services.add(sidecar);
      sidecars.push(sidecar);
    }
    balancer = await startOtelcol(
      collectorConfigPath('otelcol', 'scale-out-lb.yaml'),
      { LOOPGUARD_SIDECARS: `[${sidecars.map((sidecar) => sidecar.sidecarGrpcEndpoint).join(', ')}]` },
      { name: 'otelcol-lb' },
    );
    services.add(balancer);
  });
});

/** Which replicas know the run, with their verdicts. */
async function verdictsOf(runKey: string): Promise<{ replica: number; verdict: Verdict }[]> {
  const found: { replica: number; verdict: Verdict }[] = [];
  for (const [index, replica] of replicas.entries()) {
    const verdict = await loopguardRunVerdict<Verdict>(replica.url, runKey);
    if (verdict) found.push({ replica: index, verdict });
  }
  return found;
}

describe('scale-out: load-balancing Collector -> 2 loopguard collectors -> Jaeger', () => {
  it('200 concurrent runs: each looping run stopped exactly once, no normal run flagged, no span lost', async () => {
    const service = `e2e-scale-out-${randomUUID().slice(0, 8)}`;
    const { lines } = await runAgent<AgentLine>({
      ...nodeAgent('genai-agent (200 runs)', 'genai-agent.ts', [
        '--endpoint', balancer.agentsUrl, '--service', service,
        '--looping', String(LOOPING_RUNS), '--normal', String(NORMAL_RUNS), '--steps', String(STEPS),
        // Runs last a few hundred ms: each spans several export batches, each batch many runs.
        '--step-delay-ms', '20',
      ]),
      timeoutMs: 120_000,
    });
    const runs = lines.filter((line) => line.type === 'run');
    const sent = runs.reduce((sum, run) => sum + run.spans, 0);
    expect(runs).toHaveLength(LOOPING_RUNS + NORMAL_RUNS);
    expect(new Set(runs.map((run) => run.traceId)).size).toBe(runs.length);
    expect(sent).toBe((LOOPING_RUNS + NORMAL_RUNS) * (STEPS + 1));
    expect(lines.find((line) => line.type === 'done')).toMatchObject({ exportedSpans: sent, failedSpans: 0 });

    // Every span of every run reaches Jaeger, through one replica or the other.
    const traces = await waitFor(
      async () => {
        const found = await jaegerFindTraces(jaeger.queryUrl, { service, limit: 1000 });
        const stored = found.reduce((sum, trace) => sum + trace.spans.length, 0);
        if (stored > sent) throw new Error(`Jaeger holds ${stored} spans of ${service}, more than the ${sent} sent`);
        return found.length === runs.length && stored === sent ? found : undefined;
      },
      { description: `all ${sent} spans of ${runs.length} traces in Jaeger`, timeoutMs: 90_000 },
    );
    const byId = new Map<string, JaegerTrace>(traces.map((trace) => [trace.traceID, trace]));
    for (const run of runs) expect(byId.get(run.traceId)?.spans.length, `spans of ${run.mode} trace ${run.traceId}`).toBe(run.spans);

    // The replicas received and forwarded exactly those spans, dropped none, and shared the work.
    const metrics = await Promise.all(replicas.map((replica) => scrape(replica.url)));
    const perReplica = (name: string) => metrics.map((samples) => sampleValue(samples, name));
    expect(perReplica('loopguard_collector_spans_received_total').reduce((a, b) => a + b)).toBe(sent);
    expect(perReplica('loopguard_collector_spans_forwarded_total').reduce((a, b) => a + b)).toBe(sent);
    expect(perReplica('loopguard_collector_spans_dropped_total')).toEqual([0, 0]);
    const stoppedPerReplica = perReplica('loopguard_runs_stopped_total');
    expect(stoppedPerReplica.reduce((a, b) => a + b)).toBe(LOOPING_RUNS);
    for (const count of stoppedPerReplica) expect(count).toBeGreaterThan(0);

    for (const run of runs) {
      const trace = byId.get(run.traceId)!;
      const tools = toolSpans(trace);
      // One replica saw the whole run: its steps are 1..n, each once (split across replicas they would repeat).
      expect(tools.map((span) => jaegerTag(span, 'loopguard.step')), `steps of ${run.mode} trace ${run.traceId}`).toEqual(
        Array.from({ length: run.toolCalls }, (_, index) => index + 1),
      );
      // The root span ended last, so it reached the replica last and carries the whole run's summary.
      const root = rootSpan(trace);
      expect(
        { stopped: jaegerTag(root, 'loopguard.run.stopped'), toolCalls: jaegerTag(root, 'loopguard.run.tool_calls') },
        `run summary on the root of ${run.mode} trace ${run.traceId}`,
      ).toEqual({ stopped: run.mode === 'looping', toolCalls: run.toolCalls });
      const known = await verdictsOf(run.traceId);
      expect(known, `replicas tracking ${run.mode} run ${run.traceId}`).toHaveLength(1);
      const { verdict } = known[0]!;
      expect(verdict.toolCalls).toBe(run.toolCalls);

      if (run.mode === 'looping') {
        expect(verdict).toMatchObject({ stopped: true, level: 'break' });
        const breaks = tools.filter((span) => jaegerTag(span, 'loopguard.level') === 'break');
        expect(breaks.length, `break spans of looping trace ${run.traceId}`).toBeGreaterThan(0);
        const breakEvents = jaegerEvents(breaks[0]!, 'loopguard.loop_detected');
        expect(breakEvents).toEqual([expect.objectContaining({ 'loopguard.level': 'break', 'loopguard.action': 'break' })]);
        expect(jaegerTag(breaks[0]!, 'gen_ai.tool.name')).toBe('search_orders');
      } else {
        expect(verdict).toMatchObject({ stopped: false, level: null, detections: 0 });
        for (const span of trace.spans) {
          expect(jaegerTag(span, 'loopguard.level'), `loopguard.level on normal trace ${run.traceId}`).toBeUndefined();
          expect(jaegerEvents(span, 'loopguard.loop_detected')).toEqual([]);
        }
      }
    }
  });
});
