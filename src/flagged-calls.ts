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
 */
export class FlaggedCalls {
  private episode = 0;
  private open = false;
  private readonly flags = new Map<string, Flag>();

  /** A call with no verdict: the current episode ends. */
  quiet(): void {
    this.open = false;
  }

  /**
   * Records a verdict on the call (tool and exact arguments) made at `step`;
   * returns whether the call had been flagged and left behind before.
   */
  flag(toolId: number, argsHash: string, step: number, critical: boolean): boolean {
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
