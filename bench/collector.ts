import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchPayloads } from './collector-payloads.js';
import { freePort, otelcolBinary, perSpanMicros, runDriver, startLoopguard, startOtelcol } from './collector-processes.js';
import type { Service } from './collector-processes.js';
import { measureReplicas } from './collector-replicas.js';

/**
 * `npm run bench:collector [-- --json] [-- --quick] [-- --only loopguard|otelcol] [-- --cpu-prof DIR] [-- --replicas]`
 *
 * Throughput of `loopguard collector` and of the Go OpenTelemetry Collector
 * built by scripts/e2e/install.sh, in the same run, on the same pre-encoded
 * OTLP/protobuf requests (512 GenAI tool spans each): each system pinned to
 * CPU 0 (taskset), the load generator and a counting OTLP/HTTP sink pinned to
 * CPU 1, 1 and 16 concurrent senders. Figures: spans per second delivered to
 * the sink, and CPU time of the system per span (user + system, from /proc).
 * `--replicas` measures scale-out instead (collector-replicas.ts).
 */

const SENDERS = [1, 16];
const SPANS_PER_REQUEST = 512;

interface PhaseResult {
  senders: number;
  spansPerSec: number;
  ackedSpansPerSec: number;
  cpuMicrosPerSpan: number;
  refusedRequests: number;
  errors: number;
}

interface SystemResult {
  system: 'loopguard' | 'otelcol';
  phases: PhaseResult[];
}

interface Args {
  json: boolean;
  quick: boolean;
  replicas: boolean;
  only?: string;
  cpuProf?: string;
}

function parseArgs(argv: string[]): Args {
  const out: Args = { json: false, quick: false, replicas: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--json') out.json = true;
    else if (arg === '--quick') out.quick = true;
    else if (arg === '--replicas') out.replicas = true;
    else if (arg === '--only') out.only = argv[++i];
    else if (arg === '--cpu-prof') out.cpuProf = resolve(argv[++i] ?? 'profiles');
    else {
      process.stderr.write(`bench:collector: unknown argument ${JSON.stringify(arg)}; accepted: --json, --quick, --only loopguard|otelcol, --cpu-prof DIR, --replicas\n`);
      process.exit(2);
    }
  }
  return out;
}

/** The Go Collector as an SRE would run it for this job: batch processor, a blocking queue, OTLP/HTTP out. */
function otelcolConfig(listenPort: number, sinkPort: number): string {
  return `receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${listenPort}
processors:
  batch:
    send_batch_size: 512
    timeout: 500ms
exporters:
  otlphttp:
    endpoint: http://127.0.0.1:${sinkPort}
    compression: none
    sending_queue:
      enabled: true
      block_on_overflow: true
service:
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [otlphttp]
  telemetry:
    logs:
      level: warn
    metrics:
      level: none
`;
}

async function startSystem(system: 'loopguard' | 'otelcol', listenPort: number, sinkPort: number, work: string, cpuProf: string | undefined): Promise<Service> {
  const forwardUrl = `http://127.0.0.1:${sinkPort}/v1/traces`;
  if (system === 'loopguard') return startLoopguard(listenPort, forwardUrl, 0, cpuProf);
  const config = join(work, 'otelcol.yaml');
  writeFileSync(config, otelcolConfig(listenPort, sinkPort));
  return startOtelcol('otelcol', config, {}, 0, { httpPort: listenPort });
}

async function runPhase(pid: number, sinkPort: number, listenPort: number, senders: number, warmupMs: number, measureMs: number, payloadFile: string): Promise<PhaseResult> {
  const result = await runDriver({ sinkPort, targetUrl: `http://127.0.0.1:${listenPort}/v1/traces`, senders, warmupMs, measureMs, payloadFile, cpu: 1 }, [pid]);
  const seconds = result.measureMs / 1000;
  return {
    senders,
    spansPerSec: Math.round(result.sinkSpans / seconds),
    ackedSpansPerSec: Math.round(result.ackedSpans / seconds),
    cpuMicrosPerSpan: perSpanMicros(result.cpu[0]!, result.sinkSpans),
    refusedRequests: result.refused,
    errors: result.errors,
  };
}

async function measureSystem(system: 'loopguard' | 'otelcol', payloadFile: string, work: string, quick: boolean, cpuProf: string | undefined): Promise<SystemResult> {
  const phases: PhaseResult[] = [];
  for (const senders of SENDERS) {
    // A fresh process per phase: no queue or detection state carried over.
    const listenPort = await freePort();
    const sinkPort = await freePort();
    const sut = await startSystem(system, listenPort, sinkPort, work, cpuProf);
    try {
      phases.push(await runPhase(sut.child.pid!, sinkPort, listenPort, senders, quick ? 1500 : 3000, quick ? 3000 : 10_000, payloadFile));
    } finally {
      await sut.stop();
    }
  }
  return { system, phases };
}

/** A maximal body: up to `maxBytes` of protobuf made of whole requests (protobuf messages concatenate). */
function maximalSpansBody(bodies: Uint8Array[], maxBytes: number): Buffer {
  const parts: Uint8Array[] = [];
  let size = 0;
  for (let i = 0; size + bodies[i % bodies.length]!.length <= maxBytes; i++) {
    parts.push(bodies[i % bodies.length]!);
    size += bodies[i % bodies.length]!.length;
  }
  return Buffer.concat(parts);
}

/** One span carrying as many small attributes as fit in `maxBytes`. */
function maximalAttributesBody(maxBytes: number): Buffer {
  const kv = (i: number): Buffer => {
    const key = Buffer.from(`k${i}`);
    const value = Buffer.from([0x18, i % 100]); // AnyValue.intValue
    const inner = Buffer.concat([Buffer.from([0x0a, key.length]), key, Buffer.from([0x12, value.length]), value]);
    return Buffer.concat([Buffer.from([0x4a, inner.length]), inner]);
  };
  const attrs: Buffer[] = [];
  let size = 64;
  for (let i = 0; size < maxBytes - 64; i++) {
    const b = kv(i);
    attrs.push(b);
    size += b.length;
  }
  const ids = Buffer.concat([Buffer.from([0x0a, 16]), Buffer.alloc(16, 7), Buffer.from([0x12, 8]), Buffer.alloc(8, 9)]);
  const span = Buffer.concat([ids, ...attrs]);
  const ld = (field: number, payload: Buffer): Buffer => {
    const header: number[] = [field * 8 + 2];
    let n = payload.length;
    while (n >= 0x80) {
      header.push((n % 128) | 0x80);
      n = Math.floor(n / 128);
    }
    header.push(n);
    return Buffer.concat([Buffer.from(header), payload]);
  };
  return ld(1, ld(2, ld(2, span)));
}

/**
 * Event-loop responsiveness: the longest `/healthz` round trip while the
 * collector processes a maximal request (16 MiB of spans, or one span with
 * as many attributes as 16 MiB holds), the system pinned to CPU 0.
 */
async function measureResponsiveness(bodies: Uint8Array[], work: string): Promise<{ body: string; bytes: number; status: number; requestMs: number; healthzMaxMs: number; healthzP50Ms: number }[]> {
  const maxBytes = 16 * 1024 * 1024;
  const out = [];
  for (const [name, body] of [
    ['spans', maximalSpansBody(bodies, maxBytes)],
    ['attributes', maximalAttributesBody(maxBytes)],
  ] as const) {
    const listenPort = await freePort();
    const sut = await startSystem('loopguard', listenPort, await freePort(), work, undefined);
    try {
      const base = `http://127.0.0.1:${listenPort}`;
      const latencies: number[] = [];
      let done = false;
      const began = performance.now();
      const request = fetch(`${base}/v1/traces`, { method: 'POST', body, headers: { 'content-type': 'application/x-protobuf' } }).then(async (res) => {
        await res.arrayBuffer();
        done = true;
        return { status: res.status, ms: performance.now() - began };
      });
      while (!done) {
        const t = performance.now();
        await (await fetch(`${base}/healthz`)).arrayBuffer();
        latencies.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 10));
      }
      const { status, ms } = await request;
      latencies.sort((a, b) => a - b);
      out.push({ body: name, bytes: body.length, status, requestMs: Math.round(ms), healthzMaxMs: round(latencies.at(-1) ?? 0), healthzP50Ms: round(latencies[Math.floor(latencies.length / 2)] ?? 0) });
    } finally {
      await sut.stop();
    }
  }
  return out;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const work = mkdtempSync(join(tmpdir(), 'loopguard-bench-collector-'));
  const payloadFile = join(work, 'payloads.bin');
  const bodies = benchPayloads(16, SPANS_PER_REQUEST);
  writeFileSync(
    payloadFile,
    Buffer.concat(
      bodies.flatMap((b) => {
        const len = Buffer.alloc(4);
        len.writeUInt32BE(b.length);
        return [len, b];
      }),
    ),
  );
  const loadStart = loadavg()[0]!;
  if (args.replicas) {
    try {
      reportReplicas(args, loadStart, await measureReplicas(payloadFile, args.quick, REPLICA_SENDERS));
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    return;
  }
  const systems: ('loopguard' | 'otelcol')[] = [];
  if (args.only !== 'otelcol') systems.push('loopguard');
  if (args.only !== 'loopguard') {
    if (existsSync(otelcolBinary())) systems.push('otelcol');
    else process.stderr.write(`bench:collector: ${otelcolBinary()} not found (run scripts/e2e/install.sh otelcol); measuring loopguard only\n`);
  }
  const results: SystemResult[] = [];
  let responsiveness: Awaited<ReturnType<typeof measureResponsiveness>> = [];
  try {
    for (const system of systems) results.push(await measureSystem(system, payloadFile, work, args.quick, args.cpuProf));
    if (systems.includes('loopguard')) responsiveness = await measureResponsiveness(bodies, work);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const lg = results.find((r) => r.system === 'loopguard');
  const go = results.find((r) => r.system === 'otelcol');
  const ratios =
    lg && go
      ? SENDERS.map((senders, i) => ({
          senders,
          throughputRatio: round(lg.phases[i]!.spansPerSec / go.phases[i]!.spansPerSec),
          cpuPerSpanRatio: round(lg.phases[i]!.cpuMicrosPerSpan / go.phases[i]!.cpuMicrosPerSpan),
        }))
      : [];
  const report = {
    bodyBytes: Math.round(bodies.reduce((n, b) => n + b.length, 0) / bodies.length),
    spansPerRequest: SPANS_PER_REQUEST,
    results,
    ratios,
    responsiveness,
    bar: 'loopguard spans/s >= 0.5 x the Go Collector at 1 and 16 senders',
    barMet: ratios.length > 0 ? ratios.every((r) => r.throughputRatio >= 0.5) : null,
    environment: { node: process.version, cpus: cpus().length, loadAverage: { start: loadStart, end: loadavg()[0]! } },
    quick: args.quick,
  };
  if (args.json) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return;
  }
  const lines = [`collector throughput (${report.spansPerRequest} spans, ~${Math.round(report.bodyBytes / 1024)} KiB per request; system on CPU 0, load on CPU 1)`];
  for (const r of results) {
    for (const p of r.phases) {
      lines.push(`  ${r.system.padEnd(9)} ${String(p.senders).padStart(2)} sender(s): ${String(p.spansPerSec).padStart(7)} spans/s delivered (${p.ackedSpansPerSec} acknowledged), ${String(p.cpuMicrosPerSpan).padStart(6)} µs CPU/span, ${p.refusedRequests} refused (429/503), ${p.errors} errors`);
    }
  }
  for (const r of responsiveness) {
    lines.push(`  /healthz while loopguard processes a maximal request (${r.body}, ${(r.bytes / 1048576).toFixed(1)} MiB → ${r.status} in ${r.requestMs} ms): max ${r.healthzMaxMs} ms, median ${r.healthzP50Ms} ms`);
  }
  for (const r of ratios) lines.push(`  ratio loopguard/otelcol at ${r.senders}: throughput ${r.throughputRatio}×, CPU per span ${r.cpuPerSpanRatio}×`);
  lines.push(`  bar: ${report.bar}: ${report.barMet === null ? 'not measured (no Go Collector)' : report.barMet ? 'met' : 'NOT met'}`);
  lines.push(`  load average ${report.environment.loadAverage.start.toFixed(2)} → ${report.environment.loadAverage.end.toFixed(2)} on ${report.environment.cpus} CPUs`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Senders for the scale-out measurement: enough to keep two replicas busy through the load balancer's queue. */
const REPLICA_SENDERS = 16;
const REPLICA_BAR = 1.8;

function reportReplicas(args: Args, loadStart: number, result: Awaited<ReturnType<typeof measureReplicas>>): void {
  const report = {
    ...result,
    bar: `2 replicas deliver >= ${REPLICA_BAR} x the spans/s of 1`,
    barMet: result.ratio >= REPLICA_BAR,
    environment: { node: process.version, cpus: cpus().length, loadAverage: { start: loadStart, end: loadavg()[0]! } },
    quick: args.quick,
  };
  if (args.json) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return;
  }
  const lines = [`collector scale-out (Go Collector load_balancing by gen_ai.conversation.id → sidecar per replica → loopguard collector; ${REPLICA_SENDERS} senders)`];
  for (const p of result.phases) {
    lines.push(`  ${p.replicas} replica(s): ${String(p.spansPerSec).padStart(7)} spans/s delivered (${p.ackedSpansPerSec} acknowledged), CPU per span: loopguard ${p.loopguardCpuMicrosPerSpan} µs, Go tier ${p.goTierCpuMicrosPerSpan} µs; ${p.refusedRequests} refused, ${p.errors} errors`);
  }
  lines.push(`  ratio 2/1: ${result.ratio}×; bar: ${report.bar}: ${report.barMet ? 'met' : 'NOT met'}`);
  lines.push(`  load average ${report.environment.loadAverage.start.toFixed(2)} → ${report.environment.loadAverage.end.toFixed(2)} on ${report.environment.cpus} CPUs`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

const round = (n: number): number => Math.round(n * 100) / 100;

main().catch((err: unknown) => {
  process.stderr.write(`bench:collector failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
