/** The documented values of `loopguard.run.exit_reason` and of the `reason` of `loopguard.runs.ended`. */
export const EXIT_REASONS = ['completed', 'completed_unverified', 'loop_break', 'budget', 'truncation', 'max_turns', 'aborted', 'error'] as const;
export type ExitReason = (typeof EXIT_REASONS)[number];

/** Stop reasons (detector names) that mean the run ran out of budget rather than looped. */
const BUDGET_STOPS = new Set(['budget', 'diminishing-returns']);

/** Error types a framework ends a run with when its own turn limit is reached. */
const TURN_LIMIT_ERRORS: ReadonlySet<unknown> = new Set(['MaxTurnsExceededError', 'GraphRecursionError']);

/** Is this `error.type` a framework's turn limit (OpenAI Agents, LangGraph)? */
export function isTurnLimitError(errorType: unknown): boolean {
  return TURN_LIMIT_ERRORS.has(errorType);
}

/** How the run's root span ended, as far as the exit reason cares. */
export interface RootEnd {
  failed: boolean;
  /** The failure was a cancellation (an `AbortError`). */
  aborted: boolean;
  /** The framework's own turn limit ended the run (its error, or an adapter saw the limit reached with tool calls pending). */
  turnLimit?: boolean;
  /** Failed checks no later success cleared (the completion gate). */
  unresolved?: number;
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
  if (end.turnLimit) return 'max_turns';
  if (end.aborted) return 'aborted';
  if (end.failed) return 'error';
  return (end.unresolved ?? 0) > 0 ? 'completed_unverified' : 'completed';
}
