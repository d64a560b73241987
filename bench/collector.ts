import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, homedir, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { benchPayloads } from './collector-payloads.js';

/**
 * `npm run bench:collector [-- --json] [-- --quick] [-- --only loopguard|otelcol] [-- --cpu-prof DIR]`
 *
 * Throughput of `loopguard collector` and of the Go OpenTelemetry Collector
 * built by scripts/e2e/install.sh, in the same run, on the same pre-encoded
 * OTLP/protobuf requests (512 GenAI tool spans each): each system pinned to
 * CPU 0 (taskset), the load generator and a counting OTLP/HTTP sink pinned to
 * CPU 1, 1 and 16 concurrent senders. Figures: spans per second delivered to
 * the sink, and CPU time of the system per span (user + system, from /proc).
 */

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '..', '..');
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

function parseArgs(argv: string[]): { json: boolean; quick: boolean; only?: string; cpuProf?: string } {
  const out: { json: boolean; quick: boolean; only?: string; cpuProf?: string } = { json: false, quick: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--json') out.json = true;
    else if (arg === '--quick') out.quick = true;
    else if (arg === '--only') out.only = argv[++i];
    else if (arg === '--cpu-prof') out.cpuProf = resolve(argv[++i] ?? 'profiles');
    else {
      process.stderr.write(`bench:collector: unknown argument ${JSON.stringify(arg)}; accepted: --json, --quick, --only loopguard|otelcol, --cpu-prof DIR\n`);
      process.exit(2);
    }
  }
  return out;
}

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });
}

/** user + system CPU seconds of a process and its threads. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14, 15 of stat)
  return ticks / 100;
}

const pinned = (cpu: number, command: string, args: string[]): [string, string[]] => ['taskset', ['-c', String(cpu), command, ...args]];

async function waitReady(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`bench:collector: ${what} did not become ready`);
}

function otelcolBinary(): string {
  return join(process.env.LOOPGUARD_CACHE ?? join(homedir(), '.cache', 'loopguard'), 'bin', 'otelcol-loopguard');
}

/** The Go Collector as an SRE would run it for this job: batch processor, a blocking queue, OTLP/HTTP out. */
function otelcolConfig(listenPort: number, sinkPort: number, telemetryPort: number): string {
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

async function startSystem(
  system: 'loopguard' | 'otelcol',
  listenPort: number,
  sinkPort: number,
  work: string,
  cpuProf: string | undefined,
): Promise<{ child: ChildProcess; stop: () => Promise<void> }> {
  let command: [string, string[]];
  const env = { ...process.env };
  if (system === 'loopguard') {
    const profile = cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : [];
    command = pinned(0, process.execPath, [...profile, join(REPO, 'dist', 'src', 'cli', 'bin.js'), 'collector']);
    Object.assign(env, {
      LOOPGUARD_COLLECTOR_HOST: '127.0.0.1',
      LOOPGUARD_COLLECTOR_PORT: String(listenPort),
      LOOPGUARD_COLLECTOR_FORWARD_ENDPOINT: `http://127.0.0.1:${sinkPort}/v1/traces`,
      // Several batches in flight, as the Go Collector's sending queue has several consumers (10 by default).
      LOOPGUARD_COLLECTOR_FORWARD_MAX_CONCURRENT_BATCHES: '4',
    });
  } else {
    const config = join(work, 'otelcol.yaml');
    writeFileSync(config, otelcolConfig(listenPort, sinkPort, await freePort()));
    command = pinned(0, otelcolBinary(), ['--config', config]);
    env.GOMAXPROCS = '1';
  }
  const child = spawn(command[0], command[1], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const empty = Buffer.from([]);
  await waitReady(async () => {
    if (child.exitCode !== null) throw new Error(`${system} exited: ${stderr}`);
    const res = await fetch(`http://127.0.0.1:${listenPort}/v1/traces`, { method: 'POST', body: empty, headers: { 'content-type': 'application/x-protobuf' } });
    return res.status === 200;
  }, system);
  return {
    child,
    stop: async () => {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

async function runPhase(pid: number, sinkPort: number, listenPort: number, senders: number, warmupMs: number, measureMs: number, payloadFile: string): Promise<PhaseResult> {
  const driver = join(HERE, 'collector-driver.js');
  const [cmd, args] = pinned(1, process.execPath, [driver, String(sinkPort), `http://127.0.0.1:${listenPort}/v1/traces`, String(senders), String(warmupMs), String(measureMs), payloadFile]);
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let cpuStart = 0;
  let cpuEnd = 0;
  let result: { sinkSpans: number; ackedSpans: number; refused: number; errors: number; measureMs: number } | undefined;
  for await (const line of createInterface({ input: child.stdout! })) {
    if (line === 'measure-start') cpuStart = cpuSeconds(pid);
    else if (line === 'measure-end') cpuEnd = cpuSeconds(pid);
    else if (line.startsWith('{')) result = JSON.parse(line);
  }
  if (!result) throw new Error('bench:collector: the driver gave no result');
  const seconds = result.measureMs / 1000;
  return {
    senders,
    spansPerSec: Math.round(result.sinkSpans / seconds),
    ackedSpansPerSec: Math.round(result.ackedSpans / seconds),
    cpuMicrosPerSpan: result.sinkSpans > 0 ? Math.round(((cpuEnd - cpuStart) * 1e6 * 10) / result.sinkSpans) / 10 : Number.NaN,
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

const round = (n: number): number => Math.round(n * 100) / 100;

main().catch((err: unknown) => {
  process.stderr.write(`bench:collector failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
