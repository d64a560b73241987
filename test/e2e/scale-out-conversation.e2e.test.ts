/**
 * Scenario: scale-out routed by run key. The first-tier Collector of
 * collector-config/otelcol/scale-out-lb.yaml with routing_key attributes on
 * gen_ai.conversation.id, in front of two loopguard collectors (each behind its
 * OTLP/gRPC -> HTTP sidecar), all forwarding to nowhere but their own state.
 *
 * Every run is a conversation of three traces (three turns), the way
 * multi-turn agents export them. Routed by trace id, a conversation's turns
 * would land on both replicas and each would see a third of its history;
 * routed by the conversation id, one replica sees all of it. Checked: every
 * looping conversation is stopped exactly once, by one replica that saw all of
 * its tool calls, no normal conversation is flagged, and both replicas work.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { trackServices } from './scenarios/running-services.js';
import { nodeAgent, runAgent } from './scenarios/agent-process.js';
import { sampleValue, scrape } from './scenarios/prometheus-text.js';
import {
  collectorConfigPath,
  loopguardRunVerdict,
  startLoopguardCollector,
  startOtelcol,
  waitFor,
  type LoopguardCollectorInstance,
  type OtelcolInstance,
} from './support/index.js';

const LOOPING_RUNS = 20;
const NORMAL_RUNS = 20;
const STEPS = 12;
const TURNS = 3;

interface AgentLine {
  type: 'run' | 'done';
  mode: 'looping' | 'normal';
  runKey: string;
  traceIds: string[];
  toolCalls: number;
  spans: number;
  exportedSpans: number;
  failedSpans: number;
}

interface Verdict {
  runKey: string;
  toolCalls: number;
  level: string | null;
  stopped: boolean;
}

const services = trackServices(40);
const replicas: LoopguardCollectorInstance[] = [];
let balancer: OtelcolInstance;

beforeAll(async () => {
  await services.starting(async () => {
    const sidecars: OtelcolInstance[] = [];
    for (const index of [1, 2]) {
      const replica = await startLoopguardCollector({ name: `loopguard-collector-${index}`, env: { LOOPGUARD_COLLECTOR_BATCH_INTERVAL_MS: '100' } });
      services.add(replica);
      replicas.push(replica);
      const sidecar = await startOtelcol(collectorConfigPath('otelcol', 'scale-out-sidecar.yaml'), { LOOPGUARD_COLLECTOR_ENDPOINT: replica.url }, { name: `otelcol-sidecar-${index}` });
      services.add(sidecar);
      sidecars.push(sidecar);
    }
    balancer = await startOtelcol(
      collectorConfigPath('otelcol', 'scale-out-lb.yaml'),
      {
        LOOPGUARD_SIDECARS: `[${sidecars.map((sidecar) => sidecar.sidecarGrpcEndpoint).join(', ')}]`,
        LOOPGUARD_ROUTING_KEY: 'attributes',
        LOOPGUARD_ROUTING_ATTRIBUTES: '[gen_ai.conversation.id]',
      },
      { name: 'otelcol-lb' },
    );
    services.add(balancer);
  });
});

describe('scale-out routed by gen_ai.conversation.id: conversations of several traces', () => {
  it('stops every looping conversation exactly once, on the one replica that saw all its turns', async () => {
    const prefix = `conv-${randomUUID().slice(0, 8)}`;
    const { lines } = await runAgent<AgentLine>({
      ...nodeAgent('genai-agent (multi-turn)', 'genai-agent.ts', [
        '--endpoint', balancer.agentsUrl, '--service', `e2e-${prefix}`,
        '--looping', String(LOOPING_RUNS), '--normal', String(NORMAL_RUNS), '--steps', String(STEPS),
        '--turns', String(TURNS), '--conversation-prefix', prefix, '--step-delay-ms', '10',
      ]),
      timeoutMs: 120_000,
    });
    const runs = lines.filter((line) => line.type === 'run');
    expect(runs).toHaveLength(LOOPING_RUNS + NORMAL_RUNS);
    for (const run of runs) expect(new Set(run.traceIds).size, `traces of ${run.runKey}`).toBe(TURNS);
    const sent = runs.reduce((sum, run) => sum + run.spans, 0);
    expect(lines.find((line) => line.type === 'done')).toMatchObject({ exportedSpans: sent, failedSpans: 0 });

    const received = async (): Promise<number[]> => (await Promise.all(replicas.map((r) => scrape(r.url)))).map((s) => sampleValue(s, 'loopguard_collector_spans_received_total'));
    await waitFor(async () => ((await received()).reduce((a, b) => a + b) === sent ? true : undefined), {
      description: `all ${sent} spans at the replicas`,
      timeoutMs: 60_000,
    });
    const perReplica = await received();
    for (const count of perReplica) expect(count, 'both replicas got conversations').toBeGreaterThan(0);

    const metrics = await Promise.all(replicas.map((replica) => scrape(replica.url)));
    expect(metrics.map((m) => sampleValue(m, 'loopguard_runs_stopped_total')).reduce((a, b) => a + b)).toBe(LOOPING_RUNS);

    for (const run of runs) {
      const known: Verdict[] = [];
      for (const replica of replicas) {
        const verdict = await loopguardRunVerdict<Verdict>(replica.url, run.runKey);
        if (verdict) known.push(verdict);
      }
      expect(known, `replicas tracking ${run.mode} conversation ${run.runKey}`).toHaveLength(1);
      expect(known[0]!.toolCalls, `tool calls of ${run.runKey} seen by its replica`).toBe(run.toolCalls);
      if (run.mode === 'looping') expect(known[0]).toMatchObject({ stopped: true, level: 'break' });
      else expect(known[0]).toMatchObject({ stopped: false, level: null });
    }
  });
});
