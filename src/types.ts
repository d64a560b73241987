/** Outcome class of one tool call (DESIGN §2). `blocked`: loopguard did not execute it. */
export type Outcome = 'ok' | 'empty' | 'error' | 'pending';
export const OUTCOMES: readonly Outcome[] = ['ok', 'empty', 'error', 'pending'];

export function isOutcome(value: unknown): value is Outcome {
  return typeof value === 'string' && (OUTCOMES as readonly string[]).includes(value);
}

/** Decision tiers, weakest first. */
export type Level = 'warning' | 'critical' | 'break';
export const LEVELS: readonly Level[] = ['warning', 'critical', 'break'];

/** One finished (or blocked) tool call in a run's history. */
export interface ToolEvent {
  /** 1-based index of the call in its run. */
  step: number;
  tool: string;
  /** 16 hex chars: SHA-256 of the RFC 8785 canonical JSON of the arguments. */
  argsHash: string;
  /** 16 hex chars: the same over the conservatively normalised arguments. */
  normArgsHash: string;
  /** 16 hex chars: the same over the result (volatile fields masked), or over error type + message. */
  resultHash: string;
  outcome: Outcome;
  errorType?: string;
  startMs: number;
  endMs: number;
  /** true when the breaker refused to execute the call; the event stands for the repeat it blocked. */
  blocked?: boolean;
}

/**
 * Why a call failed, as far as retrying goes (DESIGN §3): `transient` failures
 * (timeouts, 429, 5xx, connection resets, a retryable flag) may pass on a
 * retry; `deterministic` ones (syntax, schema and validation errors, other
 * 4xx, not found, permission denied) fail the same way when resent.
 */
export type FailureKind = 'transient' | 'deterministic';
