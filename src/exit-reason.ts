/** The documented values of `loopguard.run.exit_reason` and of the `reason` of `loopguard.runs.ended`. */
export const EXIT_REASONS = ['completed', 'loop_break', 'budget', 'truncation', 'aborted', 'error'] as const;
export type ExitReason = (typeof EXIT_REASONS)[number];

/** Stop reasons (detector names) that mean the run ran out of budget rather than looped. */
const BUDGET_STOPS = new Set(['budget', 'diminishing-returns']);

/** How the run's root span ended, as far as the exit reason cares. */
export interface RootEnd {
  failed: boolean;
  /** The failure was a cancellation (an `AbortError`). */
  aborted: boolean;
}

/**
 * Why a run ended: a stop by loopguard wins (it is why the run failed, when
 * it did), then how the root span ended.
 */
export function exitReason(stopReason: string | null, end: RootEnd): ExitReason {
  if (stopReason !== null) {
    if (BUDGET_STOPS.has(stopReason)) return 'budget';
    return stopReason === 'truncation' ? 'truncation' : 'loop_break';
  }
  if (end.aborted) return 'aborted';
  return end.failed ? 'error' : 'completed';
}
