/** Calls remembered per run; beyond it the oldest is forgotten (a run flags few distinct calls). */
const MAX_FLAGGED = 256;

interface Flag {
  /** The episode the call was first flagged in. */
  episode: number;
  /** The step of its latest critical verdict (0: none). */
  critical: number;
}

/**
 * The calls a run drew verdicts on, to tell when the agent comes back to one
 * it was told about. An episode is a stretch of calls that each drew a
 * verdict; a call with none ends it: the flagged pattern stopped, as far as
 * the detectors can tell. A warning is left behind when its episode ends; a
 * critical (the call refused, or the agent told the next repeat will be)
 * as soon as the run makes another call. A call that reaches critical again
 * after it was left behind is one the agent returned to after being told:
 * it made other calls and came back until the pattern was caught again. Each
 * return restarts the detectors' counts, so without this memory such a run
 * is warned and blocked over and over and never stopped; the policy makes
 * that critical a break.
 *
 * A cycle carried on past its critical is ignored the same way: a call of a
 * cycle (period 2 or more) drew a critical (refused, or the run told its
 * next step would be) and the very next call reaches critical in a cycle of
 * that period too. The run went on to the cycle's next step as if nothing
 * had been said. A repeat of one call is left to climb its tiers: asking
 * the same thing back to back is also how waiting and retrying look.
 */
export class FlaggedCalls {
  private episode = 0;
  private open = false;
  private readonly flags = new Map<string, Flag>();
  /** The step and period of the latest critical on a cycle (0: none). */
  private cycleCritical = 0;
  private cyclePeriod = 0;

  /** A call with no verdict: the current episode ends. */
  quiet(): void {
    this.open = false;
  }

  /**
   * Records a verdict on the call (tool and exact arguments) made at `step`,
   * in a pattern of `period` calls; returns whether the run ignored what it
   * was told: the call had been flagged and left behind before, or it
   * carries a cycle on past its critical.
   */
  flag(toolId: number, argsHash: string, step: number, critical: boolean, period: number): boolean {
    const carriedOn = critical && period > 1 && this.cycleCritical === step - 1 && this.cyclePeriod === period;
    this.cycleCritical = critical && period > 1 ? step : 0;
    this.cyclePeriod = period;
    return this.returnedTo(toolId, argsHash, step, critical) || carriedOn;
  }

  private returnedTo(toolId: number, argsHash: string, step: number, critical: boolean): boolean {
    if (!this.open) {
      this.open = true;
      this.episode++;
    }
    const key = `${toolId}|${argsHash}`;
    let flag = this.flags.get(key);
    let returned = false;
    if (flag === undefined) {
      if (this.flags.size >= MAX_FLAGGED) this.flags.delete(this.flags.keys().next().value as string);
      flag = { episode: this.episode, critical: 0 };
      this.flags.set(key, flag);
    } else {
      returned = flag.episode < this.episode || (flag.critical > 0 && flag.critical < step - 1);
    }
    if (critical) flag.critical = step;
    return returned;
  }
}
