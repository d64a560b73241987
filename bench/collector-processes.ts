import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/**
 * Processes of the collector benches (`collector.ts`, `collector-replicas.ts`):
 * the systems under test, the Go Collector, and the driver (load generator and
 * counting sink, `collector-driver.ts`), each optionally pinned to one CPU.
 */

const HERE = dirname(fileURLToPath(import.meta.url));
export const REPO = resolve(HERE, '..', '..');

export function freePort(): Promise<number> {
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
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14, 15 of stat)
  return ticks / 100;
}

/** The command line, run with `taskset` on `cpu` when one is given (else wherever the scheduler puts it). */
const onCpu = (cpu: number | undefined, command: string, args: string[]): [string, string[]] =>
  cpu === undefined ? [command, args] : ['taskset', ['-c', String(cpu), command, ...args]];

async function waitReady(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`bench:collector: ${what} did not become ready`);
}

export function otelcolBinary(): string {
  return join(process.env.LOOPGUARD_CACHE ?? join(homedir(), '.cache', 'loopguard'), 'bin', 'otelcol-loopguard');
}

export interface Service {
  child: ChildProcess;
  stop: () => Promise<void>;
}

/** Starts a process and waits until `ready` says so (or it exits: then its stderr is the error). */
async function startService(what: string, command: [string, string[]], env: NodeJS.ProcessEnv, ready: () => Promise<boolean>): Promise<Service> {
  const child = spawn(command[0], command[1], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  await waitReady(async () => {
    if (child.exitCode !== null) throw new Error(`${what} exited: ${stderr}`);
    return ready();
  }, what);
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

const EMPTY = Buffer.from([]);
const acceptsEmptyExport = (listenPort: number) => async (): Promise<boolean> => {
  const res = await fetch(`http://127.0.0.1:${listenPort}/v1/traces`, { method: 'POST', body: EMPTY, headers: { 'content-type': 'application/x-protobuf' } });
  return res.status === 200;
};

/** `loopguard collector` (the CLI, default configuration except 4 batches in flight) forwarding to `forwardUrl`. */
export function startLoopguard(listenPort: number, forwardUrl: string, cpu: number | undefined, cpuProf: string | undefined): Promise<Service> {
  const profile = cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : [];
  const env = {
    ...process.env,
    LOOPGUARD_COLLECTOR_HOST: '127.0.0.1',
    LOOPGUARD_COLLECTOR_PORT: String(listenPort),
    LOOPGUARD_COLLECTOR_FORWARD_ENDPOINT: forwardUrl,
    // Several batches in flight, as the Go Collector's sending queue has several consumers (10 by default).
    LOOPGUARD_COLLECTOR_FORWARD_MAX_CONCURRENT_BATCHES: '4',
  };
  return startService('loopguard', onCpu(cpu, process.execPath, [...profile, join(REPO, 'dist', 'src', 'cli', 'bin.js'), 'collector']), env, acceptsEmptyExport(listenPort));
}

/**
 * The Go Collector with `config` (a file), one Go thread (`GOMAXPROCS=1`).
 * Ready when its OTLP/HTTP receiver on `httpPort` answers, or, for a Collector
 * without one, its health_check extension on `healthPort`.
 */
export function startOtelcol(what: string, config: string, env: Record<string, string>, cpu: number | undefined, ready: { httpPort: number } | { healthPort: number }): Promise<Service> {
  const check = 'httpPort' in ready ? acceptsEmptyExport(ready.httpPort) : async () => (await fetch(`http://127.0.0.1:${ready.healthPort}/`)).status === 200;
  return startService(what, onCpu(cpu, otelcolBinary(), ['--config', config]), { ...process.env, ...env, GOMAXPROCS: '1' }, check);
}

/** CPU microseconds per span, one decimal (NaN when nothing was delivered). */
export const perSpanMicros = (cpuSeconds: number, spans: number): number => (spans > 0 ? Math.round((cpuSeconds * 1e6 * 10) / spans) / 10 : Number.NaN);

export interface DriverResult {
  sinkSpans: number;
  ackedSpans: number;
  refused: number;
  errors: number;
  measureMs: number;
  /** CPU seconds of each watched process over the measured window. */
  cpu: number[];
}

/**
 * Runs the driver (load generator + counting sink on `sinkPort`) against
 * `targetUrl` and reads the CPU time of `watched` at the start and end of its
 * measured window. `maxInFlightSpans`: see collector-driver.ts.
 */
export async function runDriver(
  opts: { sinkPort: number; targetUrl: string; senders: number; warmupMs: number; measureMs: number; payloadFile: string; cpu: number | undefined; maxInFlightSpans?: number },
  watched: number[],
): Promise<DriverResult> {
  const driver = join(HERE, 'collector-driver.js');
  const args = [driver, String(opts.sinkPort), opts.targetUrl, String(opts.senders), String(opts.warmupMs), String(opts.measureMs), opts.payloadFile, String(opts.maxInFlightSpans ?? 0)];
  const [cmd, cmdArgs] = onCpu(opts.cpu, process.execPath, args);
  const child = spawn(cmd, cmdArgs, { stdio: ['ignore', 'pipe', 'inherit'] });
  let start: number[] = [];
  let end: number[] = [];
  let result: Omit<DriverResult, 'cpu'> | undefined;
  for await (const line of createInterface({ input: child.stdout! })) {
    if (line === 'measure-start') start = watched.map(cpuSeconds);
    else if (line === 'measure-end') end = watched.map(cpuSeconds);
    else if (line.startsWith('{')) result = JSON.parse(line);
  }
  if (!result) throw new Error('bench:collector: the driver gave no result');
  return { ...result, cpu: watched.map((_, i) => end[i]! - start[i]!) };
}
