import type { TieredDetector } from '../config.js';
import type { RunHistory } from '../history.js';
import { sameCallAgain, type Detector, type Evidence } from './evidence.js';

/**
 * Repeats of one call (period 1) and cycles of period p ≥ 2 whose results
 * repeat too, on exact arguments and on normalised ones (`semantic-repeat`).
 * Reads the history's streaming periodicity counters, so it costs one pass
 * over the periods per call.
 *
 * Errors and pending results are left to `retry-storm` and
 * `pending-resubmit`, whose tiers are meant for them: a retry against an
 * outage repeats the same failing call by design.
 */
export const periodic: Detector = (h, ctx, out) => {
  const latest = h.outcome(0);
  if (latest === 'error' || latest === 'pending') return;
  const exact1 = h.exactRun(1);
  const norm1 = h.normRun(1);
  if (norm1 > 0) {
    const calls = norm1 + 1;
    const exact = exact1 === norm1;
    if (calls >= ctx.floor('no-progress', h.toolId(0))) {
      out.push(evidence(h, exact ? 'no-progress' : 'semantic-repeat', 'no-progress', 1, calls, calls, exact));
      return;
    }
  }
  for (let p = 2; p <= h.periods; p++) {
    const run = h.normRun(p);
    // A block of p identical calls is a period-1 repeat, not a cycle.
    if (run < p || norm1 >= p - 1) continue;
    // The cycle must do something besides failing, or it is a retry storm across mirrors.
    if (!cycleHasSuccess(h, p)) return;
    const tiers: TieredDetector = p === 2 ? 'ping-pong' : 'cycle';
    const exact = h.exactRun(p) >= run;
    const periods = 1 + run / p;
    if (periods >= ctx.floor(tiers, h.toolId(0))) {
      out.push(evidence(h, exact ? tiers : 'semantic-repeat', tiers, p, periods, Math.floor(periods), exact));
    }
    return;
  }
};

function cycleHasSuccess(h: RunHistory, p: number): boolean {
  for (let back = 0; back < p; back++) if (h.outcome(back) !== 'error') return true;
  return false;
}

function evidence(
  h: RunHistory,
  detector: Evidence['detector'],
  tiers: TieredDetector,
  period: number,
  score: number,
  count: number,
  exact: boolean,
): Evidence {
  // Span of the pattern in calls: every call that repeats plus the first period.
  const calls = period === 1 ? score : Math.round((score - 1) * period) + period;
  const nextScore = period === 1 ? score + 1 : score + 1 / period;
  return {
    detector,
    tiers,
    score,
    count,
    period,
    since: h.total - calls + 1,
    toolId: h.toolId(0),
    argsHash: h.argsHash(0),
    // The call that comes next in the pattern is the one a period ago, shifted by one.
    next: sameCallAgain(h, period - 1, exact ? 'call' : 'norm', nextScore),
  };
}
