import { join } from 'node:path';
import { freePort, perSpanMicros, REPO, runDriver, startLoopguard, startOtelcol } from './collector-processes.js';
import type { Service } from './collector-processes.js';

/**
 * Scale-out on one host (`--replicas`): the documented topology of
 * collector-config/ (otelcol/scale-out-lb.yaml: the Go Collector's
 * load_balancing exporter routing by run key, `gen_ai.conversation.id`; one
 * scale-out-sidecar.yaml Collector per replica turning its OTLP/gRPC into
 * OTLP/HTTP) in front of 1, then 2 `loopguard collector` replicas, each
 * replica pinned to a CPU of its own. With one replica the Go tier and the
 * driver get the other CPU; with two there is no CPU left for them, so they
 * share both with the replicas (the ratio is then bounded by the host, and
 * the CPU figures say where the time went). Senders are held to what the
 * pipeline delivers (MAX_IN_FLIGHT_SPANS).
 */

const CONFIGS = join(REPO, 'collector-config', 'otelcol');
/**
 * The load balancer acknowledges into its queue: unthrottled senders would
 * keep it ingesting far more than the replicas deliver, its CPU taken from
 * the sidecars. Senders wait while this many spans (16 requests) are sent and
 * not yet delivered.
 */
const MAX_IN_FLIGHT_SPANS = 16 * 512;

export interface ReplicaPhase {
  replicas: number;
  senders: number;
  spansPerSec: number;
  ackedSpansPerSec: number;
  /** CPU per delivered span of all loopguard replicas together, and of the Go tier (load balancer + sidecars). */
  loopguardCpuMicrosPerSpan: number;
  goTierCpuMicrosPerSpan: number;
  refusedRequests: number;
  errors: number;
}

async function measure(replicas: number, senders: number, payloadFile: string, warmupMs: number, measureMs: number): Promise<ReplicaPhase> {
  const sinkPort = await freePort();
  const services: Service[] = [];
  try {
    const loopguards: Service[] = [];
    const sidecarGrpc: number[] = [];
    const goTier: Service[] = [];
    // One replica: replica on CPU 0, everything else on CPU 1. Two: a replica per CPU, the rest unpinned.
    const restCpu = replicas === 1 ? 1 : undefined;
    for (let i = 0; i < replicas; i++) {
      const port = await freePort();
      const replica = await startLoopguard(port, `http://127.0.0.1:${sinkPort}/v1/traces`, i, undefined);
      services.push(replica);
      loopguards.push(replica);
      const grpcPort = await freePort();
      const healthPort = await freePort();
      const sidecar = await startOtelcol(
        `sidecar ${i + 1}`,
        join(CONFIGS, 'scale-out-sidecar.yaml'),
        {
          OTELCOL_BIND_HOST: '127.0.0.1',
          OTELCOL_SIDECAR_GRPC_PORT: String(grpcPort),
          OTELCOL_HEALTH_PORT: String(healthPort),
          OTELCOL_TELEMETRY_PORT: String(await freePort()),
          LOOPGUARD_COLLECTOR_ENDPOINT: `http://127.0.0.1:${port}`,
        },
        restCpu,
        { healthPort },
      );
      services.push(sidecar);
      goTier.push(sidecar);
      sidecarGrpc.push(grpcPort);
    }
    const lbPort = await freePort();
    const lb = await startOtelcol(
      'load balancer',
      join(CONFIGS, 'scale-out-lb.yaml'),
      {
        OTELCOL_BIND_HOST: '127.0.0.1',
        OTELCOL_AGENTS_HTTP_PORT: String(lbPort),
        OTELCOL_HEALTH_PORT: String(await freePort()),
        OTELCOL_TELEMETRY_PORT: String(await freePort()),
        LOOPGUARD_SIDECARS: `[${sidecarGrpc.map((p) => `127.0.0.1:${p}`).join(', ')}]`,
        LOOPGUARD_ROUTING_KEY: 'attributes',
        LOOPGUARD_ROUTING_ATTRIBUTES: '[gen_ai.conversation.id]',
      },
      restCpu,
      { httpPort: lbPort },
    );
    services.push(lb);
    goTier.push(lb);
    const watched = [...loopguards, ...goTier].map((s) => s.child.pid!);
    const result = await runDriver({ sinkPort, targetUrl: `http://127.0.0.1:${lbPort}/v1/traces`, senders, warmupMs, measureMs, payloadFile, cpu: restCpu, maxInFlightSpans: MAX_IN_FLIGHT_SPANS }, watched);
    const seconds = result.measureMs / 1000;
    const sum = (from: number, to: number): number => result.cpu.slice(from, to).reduce((a, b) => a + b, 0);
    return {
      replicas,
      senders,
      spansPerSec: Math.round(result.sinkSpans / seconds),
      ackedSpansPerSec: Math.round(result.ackedSpans / seconds),
      loopguardCpuMicrosPerSpan: perSpanMicros(sum(0, replicas), result.sinkSpans),
      goTierCpuMicrosPerSpan: perSpanMicros(sum(replicas, watched.length), result.sinkSpans),
      refusedRequests: result.refused,
      errors: result.errors,
    };
  } finally {
    // The load balancer first, so it stops sending before its backends go.
    for (const service of services.reverse()) await service.stop();
  }
}

/** Delivered spans/s through the load balancer with 1 and with 2 replicas, and their ratio. */
export async function measureReplicas(payloadFile: string, quick: boolean, senders: number): Promise<{ phases: ReplicaPhase[]; ratio: number }> {
  const warmupMs = quick ? 1500 : 3000;
  const measureMs = quick ? 3000 : 10_000;
  const phases = [await measure(1, senders, payloadFile, warmupMs, measureMs), await measure(2, senders, payloadFile, warmupMs, measureMs)];
  return { phases, ratio: Math.round((phases[1]!.spansPerSec / phases[0]!.spansPerSec) * 100) / 100 };
}
