import { context, trace } from '@opentelemetry/api';
import type { OpenRun, RunOptions } from '../../agent-run.js';
import type { ToolCallGuard } from './guard-like.js';

/**
 * Agent invocations open a run by themselves (`invoke`, `run()`,
 * `generateText`, an MCP session), so an agent needs no `guard.run()`. Only
 * when nothing is active: inside `guard.run()`, a span of the user's or an
 * outer agent's run, the invocation is part of that run.
 */
export function openAutoRun(guard: ToolCallGuard | undefined, name: string, options: RunOptions = {}): OpenRun | undefined {
  if (!guard || trace.getActiveSpan() !== undefined) return undefined;
  try {
    return guard.startRun(name, options);
  } catch {
    // Opening a run is loopguard's business: the invocation goes on without one.
    return undefined;
  }
}

/** Runs an invocation that returns a promise inside a run of its own (see openAutoRun); the run ends when it settles. */
export function withAutoRun<T>(guard: ToolCallGuard | undefined, name: string, options: RunOptions, invoke: () => Promise<T>): Promise<T> {
  const run = openAutoRun(guard, name, options);
  if (!run) return invoke();
  return context.with(run.context, invoke).then(
    (value) => {
      run.end();
      return value;
    },
    (err: unknown) => {
      run.end(err);
      throw err;
    },
  );
}

/** A non-empty string id, or undefined. */
export function idOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
