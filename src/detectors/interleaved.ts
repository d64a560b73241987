import type { RunHistory } from '../history.js';
import { sameCallAgain, type Detector } from './evidence.js';
import { pollsAJob } from './periodic.js';

/**
 * Filler tells the agent nothing and changes nothing: an answer its tool had
 * given before, from a call made before or from a tool that always answers
 * alike (a "think" tool's acknowledgement). A new command whose output
 * happens to repeat (an edit printing nothing) is an action, not filler.
 */
export function filler(h: RunHistory, back: number): boolean {
  return h.answeredBefore(back) && (h.calledBefore(back) || !h.toolAnswersVary(back));
}

/**
 * `no-progress` with filler in between: the same call with the same result
 * again and again, separated only by calls that told the agent nothing new
 * (a "think" tool acknowledging each thought, a log call). Nothing between
 * the repeats moved, so they count as if back to back. A single new answer in
 * between is progress and ends the count.
 */
export const interleavedNoProgress: Detector = (h, ctx, out) => {
  const outcome = h.outcome(0);
  if (outcome === 'error' || outcome === 'pending') return;
  const floor = ctx.floor('no-progress', h.toolId(0));
  // The back-to-back case is the periodic detector's; this one needs filler in between.
  if (h.exactRun(1) > 0 || h.earlierSameCalls() < floor - 1) return;
  let calls = 1;
  let last = 0;
  let paced = h.spaced(0);
  for (let back = 1; back < h.size; back++) {
    if (!h.sameCall(0, back)) continue;
    if (!h.sameResult(0, back)) break;
    let quiet = true;
    for (let between = last + 1; between < back && quiet; between++) quiet = filler(h, between);
    if (!quiet) break;
    calls++;
    last = back;
    paced &&= h.spaced(back);
  }
  // Filler that checks on a pending job by id (sleep, poll, sleep, poll), or repeats each made at a waiting pace
  // (a `sleep 90` between lock retries), mean the run is waiting.
  const tiers = pollsAJob(h, last) || paced ? 'pending-poll' : 'no-progress';
  if (calls < ctx.floor(tiers, h.toolId(0))) return;
  out.push({
    detector: 'no-progress',
    tiers,
    score: calls,
    count: calls,
    period: 1,
    since: h.total - last,
    toolId: h.toolId(0),
    argsHash: h.argsHash(0),
    next: sameCallAgain(h, 0, 'call', calls + 1),
  });
};
