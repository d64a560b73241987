import { context, createContextKey, diag } from '@opentelemetry/api';
import { isLoopGuardVerdictError } from '../../../src/breaker.js';
import type { ToolCallGuard } from './guard-like.js';

/** Set inside a gated invocation: a nested one (an agent run as another agent's tool) is not gated again. */
const GATED = createContextKey('loopguard.completion-gate');

/** How one framework invocation is gated. */
export interface GatedInvocation<T> {
  /** Runs the invocation as the caller asked. */
  run(): Promise<T>;
  /** Did the model finish (a final answer, not a limit or an interruption)? */
  finished(result: T): boolean;
  /** Runs it again, continuing the conversation of `result` with `message` as the user's next turn. */
  again(result: T, message: string): Promise<T>;
}

/**
 * The completion gate around one framework invocation (docs/model-turns.md,
 * "Completion gate"): when the model finishes while a failed check is still
 * open, the invocation is run once more with the request to verify as a new
 * user turn, and the result of that turn is returned. A second finish with
 * the failure still open is recorded, not asked again. The extra turn is
 * loopguard's doing: if it fails, the first answer stands (only a loop
 * verdict, which stops the run, is passed on).
 */
export async function gateInvocation<T>(guard: ToolCallGuard | undefined, invocation: GatedInvocation<T>): Promise<T> {
  if (!guard?.finishGate || context.active().getValue(GATED) === true) return invocation.run();
  const inside = context.active().setValue(GATED, true);
  const first = await context.with(inside, () => invocation.run());
  if (!safely(() => invocation.finished(first))) return first;
  const message = await guard.finishGate();
  if (message === undefined) return first;
  let second: T;
  try {
    second = await context.with(inside, () => invocation.again(first, message));
  } catch (err) {
    if (isLoopGuardVerdictError(err)) throw err;
    diag.warn('loopguard: the turn asking the model to verify failed; the first answer stands', err);
    return first;
  }
  if (safely(() => invocation.finished(second))) await guard.finishGate();
  return second;
}

/** A result of an unexpected shape is not a finish. */
function safely(check: () => boolean): boolean {
  try {
    return check();
  } catch {
    return false;
  }
}
