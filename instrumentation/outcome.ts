import { trace } from '@opentelemetry/api';
import { ATTR_LOOPGUARD_OUTCOME } from '../src/semconv.js';
import type { Outcome } from '../src/types.js';

/**
 * Declares the outcome of the tool call in progress, from inside the tool:
 * `empty` when it found nothing, `pending` when it only queued work, `error`
 * for an in-band failure. Wins over loopguard's inference from the result.
 * Outside a guarded call it does nothing.
 */
export function setToolOutcome(outcome: Outcome): void {
  trace.getActiveSpan()?.setAttribute(ATTR_LOOPGUARD_OUTCOME, outcome);
}
