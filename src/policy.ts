import { TIERED_DETECTORS, type Thresholds, type TieredDetector } from './config.js';
import type { Continuation, Evidence } from './detectors/index.js';
import type { ResolvedDetectionOptions } from './options.js';
import type { Level } from './types.js';
import { BUDGET_WARNING_SHARE } from './detectors/budget.js';
import type { ModelEvidence } from './detectors/model-turns.js';

/** What the policy makes of one model response: the level it reached (0: none) and the evidence worth telling the model about. */
export interface ModelJudgement {
  rank: number;
  /** The evidence behind the level, or behind the message when there is no level. */
  top: ModelEvidence | undefined;
  /** Whether `top` deserves a message to the model (a nudge below warning: budget notice, truncation recovery). */
  tell: boolean;
}

const NO_MODEL_JUDGEMENT: ModelJudgement = Object.freeze({ rank: 0, top: undefined, tell: false });

/** Numeric rank of a level; 0 is "no verdict". */
export const LEVEL_RANK: Readonly<Record<Level, number>> = { warning: 1, critical: 2, break: 3 };
export const RANKED_LEVELS: readonly (Level | undefined)[] = [undefined, 'warning', 'critical', 'break'];

/** The budget fuse has no critical tier: blocking one call does not bring a run back under budget. */
const BUDGET_TIERS: Thresholds = { warning: BUDGET_WARNING_SHARE, critical: 0, break: 1 };

/** A continuation the breaker acts on before the call runs. */
export interface Armed {
  next: Continuation;
  rank: number;
  evidence: Evidence;
}

/** One decision per call (DESIGN §3). */
export interface Decision {
  /** The call's step in its run (0 when the call was not tracked). */
  step: number;
  level: Level | undefined;
  /** Evidence at warning or above, strongest first. */
  evidence: Evidence[];
  /** Whether this decision should reach the model and the callbacks; repeated warnings are throttled. */
  notify: boolean;
}

export const NO_DECISION: Decision = Object.freeze({ step: 0, level: undefined, evidence: [], notify: false }) as Decision;

/** The policy's reading of one call's evidence. */
export interface Judgement {
  /** Evidence at warning or above, strongest first. */
  ranked: Evidence[];
  /** The highest rank reached (0: none). */
  rank: number;
  armed: Armed[];
  /** The longest period among the patterns at that rank: a cycle seen there outweighs a repeat of its single call. */
  period: number;
}

const NOTHING: Judgement = Object.freeze({ ranked: [], rank: 0, armed: [], period: 0 }) as never;

export class Policy {
  private readonly floors = new WeakMap<Thresholds, number>();
  private readonly toolOverrides: boolean;
  /** floor() of each detector's run-wide tiers, worked out once: detectors ask on every call. */
  private readonly runFloors = {} as Record<TieredDetector, number>;

  constructor(private readonly options: ResolvedDetectionOptions) {
    this.toolOverrides = Object.values(options.tools).some((t) => t.thresholds !== undefined);
    for (const d of TIERED_DETECTORS) this.runFloors[d] = this.floor(options.thresholds[d]);
  }

  /** floor() of the tiers that apply to a tool's calls (its own when it has some); the name is only looked up then. */
  floorFor(tiers: TieredDetector, toolId: number, toolName: (id: number) => string): number {
    return this.toolOverrides ? this.floor(this.tiersFor({ tiers }, toolName(toolId))) : this.runFloors[tiers];
  }

  tiersFor(evidence: Pick<Evidence, 'tiers'>, tool: string): Thresholds {
    if (evidence.tiers === 'budget') return BUDGET_TIERS;
    const own = this.toolOverrides ? this.options.tools[tool]?.thresholds?.[evidence.tiers] : undefined;
    return own ?? this.options.thresholds[evidence.tiers];
  }


  /**
   * The rank of a verdict on a call the agent made in spite of being told
   * (flagged-calls.ts: it came back to a flagged call, or carried a cycle on
   * past its critical): a critical becomes a break, where the detector's
   * tiers have a break at all (a family that only warns or blocks never
   * stops a run this way).
   */
  onIgnored(rank: number, top: Pick<Evidence, 'tiers'>, tool: string): number {
    return rank === LEVEL_RANK.critical && this.tiersFor(top, tool).break > 0 ? LEVEL_RANK.break : rank;
  }

  /** Smallest score at which a tier table yields anything (detectors skip work below it). */
  floor(tiers: Thresholds): number {
    let floor = this.floors.get(tiers);
    if (floor === undefined) {
      const active = [tiers.warning, tiers.critical, tiers.break].filter((n) => n > 0);
      floor = active.length === 0 ? Infinity : Math.min(...active);
      this.floors.set(tiers, floor);
    }
    return floor;
  }

  rank(tiers: Thresholds, score: number): number {
    if (tiers.break > 0 && score >= tiers.break) return 3;
    if (tiers.critical > 0 && score >= tiers.critical) return 2;
    if (tiers.warning > 0 && score >= tiers.warning) return 1;
    return 0;
  }

  /**
   * Ranks the evidence of one model response. Using the output budget up to
   * its notice share, a first truncation and a low continuation are not
   * loops: the model gets a message, the run no verdict (a long report ends
   * with a short closing answer). Consecutive truncations are a loop
   * (warning); each family breaks at its limit.
   */
  judgeModel(evidence: ModelEvidence[]): ModelJudgement {
    if (evidence.length === 0) return NO_MODEL_JUDGEMENT;
    let best: ModelJudgement = NO_MODEL_JUDGEMENT;
    for (const e of evidence) {
      if (this.options.disabled.has(e.detector)) continue;
      const rank = this.modelRank(e);
      if (rank > best.rank || best.top === undefined) best = { rank, top: e, tell: true };
    }
    return best;
  }

  private modelRank(e: ModelEvidence): number {
    const o = this.options;
    switch (e.detector) {
      case 'budget':
        return e.score >= 1 ? 3 : 0;
      case 'diminishing-returns':
        return e.score >= o.lowContinuationsToStop ? 3 : 0;
      case 'truncation':
        return e.score >= o.maxTruncations ? 3 : e.score >= 2 ? 1 : 0;
      case 'repeated-answer':
        return o.maxRepeatedAnswers > 0 && e.score >= o.maxRepeatedAnswers ? 3 : 1;
      // One chanting response is a loop already (Gemini CLI stops the turn on it): a warning; the run stops at the limit.
      case 'chanting':
        return e.score >= o.maxChantingResponses ? 3 : 1;
    }
  }

  /**
   * Ranks the evidence of one call, and arms the continuations whose next
   * call would reach critical or break: that next call is blocked (or the run
   * stopped) before it executes.
   */
  judge(evidence: Evidence[], toolName: (id: number) => string): Judgement {
    // Most calls have no evidence at all: no arrays for them.
    if (evidence.length === 0) return NOTHING;
    const ranked: Array<{ e: Evidence; rank: number }> = [];
    const armed: Armed[] = [];
    let top = 0;
    for (const e of evidence) {
      if (this.options.disabled.has(e.detector)) continue;
      const tiers = this.tiersFor(e, toolName(e.toolId));
      const rank = this.rank(tiers, e.score);
      if (rank > 0) {
        ranked.push({ e, rank });
        if (rank > top) top = rank;
      }
      if (rank > 0 && e.next) {
        const nextRank = this.rank(tiers, e.next.score);
        if (nextRank >= 2) armed.push({ next: e.next, rank: nextRank, evidence: e });
      }
    }
    ranked.sort((a, b) => b.rank - a.rank || b.e.score - a.e.score);
    let period = 0;
    for (const r of ranked) if (r.rank === top && r.e.period > period) period = r.e.period;
    return { ranked: ranked.map((r) => r.e), rank: top, armed, period };
  }
}
