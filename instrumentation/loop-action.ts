import type { Level } from '../src/types.js';

/** What `onLoop` may answer to override the default action. */
export type LoopAction = 'continue' | 'block' | 'break';

/** The guard's action on one call with a verdict. */
export interface CallAction {
  /**
   * `run`: execute the call after all; `nudge`: hand back the result (with
   * the nudge); `block`: a not-executed result instead; `break`: stop the
   * run; `resume`: hand back the result and lift the stop the call's
   * verdict put on the run.
   */
  act: 'run' | 'nudge' | 'block' | 'break' | 'resume';
  /** The break was `onLoop`'s answer, not the breaker's: the run's stop reason is `onLoop`. */
  byOnLoop: boolean;
}

/**
 * The breaker's own action: before a call (a pattern armed for blocking),
 * block it, or break at the break tier; after a call, nudge, or break.
 */
export function defaultAction(ran: boolean, level: Level): 'nudge' | 'block' | 'break' {
  if (level === 'break') return 'break';
  return ran ? 'nudge' : 'block';
}

/**
 * The one rule combining the verdict's level, the `onLoop` answer and the
 * level the call's record reached. `ran`: the call was executed (decided
 * after it) or not yet (decided before it; `recorded` is then the level
 * reached once it is recorded as blocked). A call that failed keeps its
 * error: `block` has no result to replace (`returned` false).
 */
export function decideAction(ran: boolean, level: Level, answer: LoopAction | undefined, recorded: Level | undefined, returned: boolean): CallAction {
  const proposed = defaultAction(ran, level);
  if (answer === 'continue') return { act: ran ? (proposed === 'break' ? 'resume' : 'nudge') : 'run', byOnLoop: false };
  // The record of the call itself can reach the break (another pattern crossing its last tier on the same call).
  const breakerBreaks = proposed === 'break' || recorded === 'break';
  if (breakerBreaks || answer === 'break') return { act: 'break', byOnLoop: !breakerBreaks };
  if (!ran || (answer === 'block' && returned)) return { act: 'block', byOnLoop: false };
  return { act: 'nudge', byOnLoop: false };
}
