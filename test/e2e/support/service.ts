/**
 * Runs one real service binary for a test: its own temp dir, output in a log
 * file there, readiness polling, and a stop() that always reaps the process.
 * Every error message carries the end of the service's log, because "did not
 * become ready" alone never says why.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface StartServiceOptions {
  /** Short name, used for the temp dir and in messages. */
  name: string;
  command: string;
  args: readonly string[];
  /** Added to the test process's environment. */
  env?: Readonly<Record<string, string>>;
  /** Resolves true once the service answers; called every `pollMs` until `readyTimeoutMs`. */
  isReady: () => Promise<boolean>;
  readyTimeoutMs?: number;
  pollMs?: number;
  /** Use this dir instead of a fresh temp dir (it must exist). */
  workDir?: string;
  /** Remove the work dir on stop (unless LOOPGUARD_E2E_KEEP=1); default: only a dir this function created. */
  removeWorkDirOnStop?: boolean;
  cwd?: string;
}

export interface ServiceHandle {
  readonly name: string;
  readonly pid: number;
  /** The service's temp dir (logs, data); removed by stop() unless LOOPGUARD_E2E_KEEP=1. */
  readonly workDir: string;
  readonly logPath: string;
  /** The last `lines` lines of the service's output. */
  logTail(lines?: number): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. Idempotent. */
  stop(graceMs?: number): Promise<void>;
  /** Set once the process has exited. */
  readonly exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/** A crashed or timed-out test file must not leave services listening. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}

function tail(path: string, lines: number): string {
  try {
    const all = readFileSync(path, 'utf8').split('\n');
    return all.slice(Math.max(0, all.length - lines - 1)).join('\n');
  } catch (error) {
    return `(log unreadable: ${error instanceof Error ? error.message : String(error)})`;
  }
}

export function describeLog(service: Pick<ServiceHandle, 'name' | 'logPath' | 'logTail'>, lines = 80): string {
  return `--- ${service.name} log (${service.logPath}), last ${lines} lines ---\n${service.logTail(lines)}\n--- end of ${service.name} log ---`;
}

export async function startService(options: StartServiceOptions): Promise<ServiceHandle> {
  const { name, command, args, env = {}, isReady, readyTimeoutMs = 60_000, pollMs = 200 } = options;
  installExitHook();
  const workDir = options.workDir ?? mkdtempSync(join(tmpdir(), `loopguard-e2e-${name}-`));
  const logPath = join(workDir, `${name}.log`);
  const logFd = openSync(logPath, 'a');
  let child: ChildProcess;
  try {
    child = spawn(command, args, {
      cwd: options.cwd ?? workDir,
      env: { ...process.env, ...env },
      stdio: ['ignore', logFd, logFd],
    });
  } finally {
    // The child holds its own copy of the descriptor.
    closeSync(logFd);
  }
  running.add(child);

  let exit: ServiceHandle['exit'];
  let spawnError: Error | undefined;
  const exited = new Promise<void>((resolveExit) => {
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      running.delete(child);
      resolveExit();
    });
    child.once('error', (error) => {
      spawnError = error;
      exit ??= { code: null, signal: null };
      running.delete(child);
      resolveExit();
    });
  });

  let stopping: Promise<void> | undefined;
  const handle: ServiceHandle = {
    name,
    get pid() {
      return child.pid ?? -1;
    },
    workDir,
    logPath,
    logTail: (lines = 80) => tail(logPath, lines),
    get exit() {
      return exit;
    },
    stop(graceMs = 10_000) {
      stopping ??= (async () => {
        if (exit === undefined) {
          child.kill('SIGTERM');
          const killed = await Promise.race([
            exited.then(() => false),
            new Promise<boolean>((resolveTimer) => setTimeout(() => resolveTimer(true), graceMs)),
          ]);
          if (killed) {
            child.kill('SIGKILL');
            await exited;
          }
        }
        if (process.env.LOOPGUARD_E2E_KEEP !== '1' && (options.removeWorkDirOnStop ?? options.workDir === undefined)) {
          rmSync(workDir, { recursive: true, force: true });
        }
      })();
      return stopping;
    },
  };

  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (exit !== undefined) {
      const how = spawnError ? `could not be started (${spawnError.message})` : `exited (code ${exit.code}, signal ${exit.signal})`;
      const log = describeLog(handle);
      await handle.stop();
      throw new Error(`${name} ${how} before it was ready: ${command} ${args.join(' ')}\n${log}`);
    }
    if (await isReady()) return handle;
    if (Date.now() >= deadline) {
      const log = describeLog(handle);
      await handle.stop();
      throw new Error(`${name} was not ready within ${readyTimeoutMs} ms: ${command} ${args.join(' ')}\n${log}`);
    }
    await new Promise((resolveSleep) => setTimeout(resolveSleep, pollMs));
  }
}
