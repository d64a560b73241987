import type { TieredDetector, ToolDetectorName } from '../config.js';
import type { RunHistory } from '../history.js';
import type { FailureKind, Outcome } from '../types.js';

/**
 * How the next call would continue a pattern: which calls match, and what the
 * pattern expects them to return. The breaker blocks a matching call when
 * continuing would reach the critical tier; the blocked call is then
 * recorded with the expected result, so insisting keeps the evidence alive.
 */
export interface Continuation {
  /** `call`: same tool and arguments; `norm`: same tool and normalised arguments; `tool`: any call of the tool; `any`: any call. */
  match: 'call' | 'norm' | 'tool' | 'any';
  toolId: number;
  argsHash: string;
  normArgsHash: string;
  resultHash: string;
  outcome: Outcome;
  /** The argument shape a blocked call is recorded with (empty streaks). */
  shapeHash?: string;
  /** Flags a blocked call is recorded with, as the call it repeats had them. */
  informative: boolean;
  namesId: boolean;
  /** The failure kind a blocked call is recorded with, as the failure it repeats had it. */
  failure?: FailureKind;
  /** The detector's score once the matching call is made. */
  score: number;
}

/** What a detector saw. Detectors report; only the policy decides. */
export interface Evidence {
  detector: ToolDetectorName;
  /** Which tier table applies. */
  tiers: TieredDetector | 'budget';
  /** The figure compared with the tiers: calls, periods (cycles), variants (same-error) or a fuse's use. */
  score: number;
  /** Whole repetitions, as reported in `loopguard.count`. */
  count: number;
  /** Cycle length in calls; 1 for a repeat of one call. */
  period: number;
  /** Step at which the pattern started. */
  since: number;
  toolId: number;
  /** Arguments hash of the latest call in the pattern. */
  argsHash: string;
  next: Continuation | undefined;
}

/** What every detector reads besides the history. */
export interface DetectorContext {
  /** Step budget of the `budget` fuse etc.; see `budget.ts`. */
  readonly maxToolCalls: number;
  readonly maxRunMs: number;
  readonly maxTokens: number;
  readonly tokens: number;
  /** Smallest score worth reporting for a tiered detector (its warning tier, or lower tiers when warnings are off). */
  floor(tiers: TieredDetector, toolId: number): number;
}

export type Detector = (h: RunHistory, ctx: DetectorContext, out: Evidence[]) => void;

/** The continuation "the same call again, with the same result" for the call `back` steps ago. */
export function sameCallAgain(h: RunHistory, back: number, match: Continuation['match'], score: number): Continuation {
  return {
    match,
    toolId: h.toolId(back),
    argsHash: h.argsHash(back),
    normArgsHash: h.normArgsHash(back),
    resultHash: h.resultHash(back),
    outcome: h.outcome(back),
    informative: h.informative(back),
    namesId: h.namesId(back),
    failure: h.failure(back),
    score,
  };
}
