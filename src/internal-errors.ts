import { diag } from '@opentelemetry/api';

/**
 * The one way loopguard runs its own work and the user's hooks where a
 * failure must not reach the host (the tracer, the agent's tool call): what
 * throws is logged on the diag channel and handed to `onInternalError`, and
 * the caller's fallback is used instead. The processor and the guard share
 * one instance, so every failure reaches the same callback.
 */
export class InternalErrors {
  constructor(private readonly onInternalError: ((error: unknown) => void) | undefined) {}

  /** Logs a failure caught inside loopguard and tells `onInternalError` (whose own failure is only logged). */
  report(what: string, error: unknown): void {
    diag.error(`loopguard: ${what}`, error);
    if (!this.onInternalError) return;
    try {
      this.onInternalError(error);
    } catch (hookError) {
      diag.error('loopguard: onInternalError threw', hookError);
    }
  }

  /** `fn()`, or `fallback` when it throws (reported as `what`). */
  run<T, F>(what: string, fn: () => T, fallback: F): T | F {
    try {
      return fn();
    } catch (err) {
      this.report(what, err);
      return fallback;
    }
  }

  /**
   * The same for async work. Errors `passes` accepts are loopguard's
   * documented verdicts (a break, a block): they are the result, so they
   * propagate unreported.
   */
  async runAsync<T, F>(what: string, fn: () => T | Promise<T>, fallback: F, passes?: (error: unknown) => boolean): Promise<T | F> {
    try {
      return await fn();
    } catch (err) {
      if (passes?.(err)) throw err;
      this.report(what, err);
      return fallback;
    }
  }
}
