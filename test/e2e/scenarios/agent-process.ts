/**
 * Runs an agent program (test/e2e/agents/) as its own process, the way a user
 * runs an agent: its own runtime, its own OpenTelemetry SDK, talking to the
 * services only over the network. Agents print one JSON object per line on
 * stdout; anything else they print goes to the error message when they fail.
 *
 * Every agent is bounded by a timeout and killed with SIGKILL past it, and a
 * test's afterAll/afterEach can kill whatever is still running.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/index.js';

export const AGENTS_DIR = join(REPO_ROOT, 'test', 'e2e', 'agents');

export interface AgentCommand {
  /** For messages. */
  name: string;
  command: string;
  args: readonly string[];
  env?: Readonly<Record<string, string>>;
  /** Killed (SIGKILL) past this; default 120 s. */
  timeoutMs?: number;
}

/** A TypeScript agent under test/e2e/agents, run by this Node through tsx. */
export function nodeAgent(name: string, file: string, args: readonly string[], env?: Readonly<Record<string, string>>): AgentCommand {
  return { name, command: process.execPath, args: ['--import', 'tsx', join(AGENTS_DIR, file), ...args], env };
}

export interface AgentResult<T> {
  /** The JSON lines of stdout, parsed. */
  lines: T[];
  stderr: string;
}

export interface RunningAgent<T> {
  readonly name: string;
  readonly pid: number;
  /** JSON lines printed so far. */
  readonly lines: readonly T[];
  /** True until the process has exited. */
  readonly alive: boolean;
  /** Resolves with every line when the agent exits 0; rejects with its output otherwise. */
  readonly done: Promise<AgentResult<T>>;
  /** SIGKILL if still running; resolves once it is gone. */
  kill(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export function startAgent<T = Record<string, unknown>>(agent: AgentCommand): RunningAgent<T> {
  const timeoutMs = agent.timeoutMs ?? 120_000;
  const child = spawn(agent.command, agent.args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...agent.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const lines: T[] = [];
  let stdoutRest = '';
  let stdoutText = '';
  let stderr = '';
  let alive = true;
  let parseError: Error | undefined;

  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdoutText += chunk;
    stdoutRest += chunk;
    const parts = stdoutRest.split('\n');
    stdoutRest = parts.pop() ?? '';
    for (const line of parts) {
      if (line.trim() === '') continue;
      try {
        lines.push(JSON.parse(line) as T);
      } catch {
        parseError ??= new Error(`${agent.name} printed a stdout line that is not JSON: ${line.slice(0, 300)}`);
      }
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });

  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, timeoutMs);

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolveExit) => {
    child.once('error', (error) => resolveExit({ code: null, signal: null, error }));
    child.once('close', (code, signal) => resolveExit({ code, signal }));
  }).then((exit) => {
    alive = false;
    clearTimeout(timer);
    running.delete(child);
    return exit;
  });

  const done = exited.then((exit) => {
    const output = `--- ${agent.name} stdout ---\n${stdoutText.slice(-6000)}\n--- ${agent.name} stderr ---\n${stderr.slice(-6000)}\n--- end ---`;
    if (exit.error) throw new Error(`${agent.name} could not start (${agent.command}): ${exit.error.message}`);
    if (timedOut) throw new Error(`${agent.name} did not finish within ${timeoutMs} ms and was killed\n${output}`);
    if (exit.code !== 0) throw new Error(`${agent.name} exited with ${exit.code ?? exit.signal}\n${output}`);
    if (parseError) throw new Error(`${parseError.message}\n${output}`);
    return { lines, stderr };
  });
  // A caller that only kills the agent must not see an unhandled rejection.
  done.catch(() => {});

  return {
    name: agent.name,
    get pid() {
      return child.pid ?? -1;
    },
    lines,
    get alive() {
      return alive;
    },
    done,
    async kill() {
      if (alive) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Runs an agent to its end and returns its JSON lines; throws with its output if it fails. */
export async function runAgent<T = Record<string, unknown>>(agent: AgentCommand): Promise<AgentResult<T>> {
  return startAgent<T>(agent).done;
}
