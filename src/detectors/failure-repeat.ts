import type { RunHistory } from '../history.js';
import { sameCallAgain, type Detector } from './evidence.js';
import { filler } from './interleaved.js';

/**
 * `failure-repeat`: the same (or a near-same) call failing the same
 * deterministic way again (DESIGN §3): a schema or syntax error, a missing
 * required field, a 404 on a made-up id. Unlike an outage, resending will not
 * help, so resending it unchanged is a loop by the third attempt, whatever
 * the run says in between (apologies to the user, notes to itself). Two
 * things earn an attempt of slack each, since they are how fixing looks:
 * new work before it (an edit, then the test again: see freshWorkBetween),
 * and arguments that changed, however little (a corrected body rejected by
 * the same linter). A success or a different
 * failure of the call ends the count. Transient failures are `retry-storm`'s.
 */
export const failureRepeat: Detector = (h, ctx, out) => {
  if (h.outcome(0) !== 'error' || h.failure(0) !== 'deterministic') return;
  const tool = h.toolId(0);
  const floor = ctx.floor('failure-repeat', tool);
  let attempts = 1;
  let freshGaps = 0;
  let changed = false;
  let first = 0;
  for (let back = 1; back < h.size; back++) {
    if (!h.similarCall(0, back)) continue;
    if (h.outcome(back) !== 'error' || !h.sameResult(0, back)) break;
    if (freshWorkBetween(h, first, back)) freshGaps++;
    if (!h.sameCall(0, back)) changed = true;
    attempts++;
    first = back;
  }
  const score = attempts - freshGaps - (changed ? 1 : 0);
  if (score < 2 || score < floor) return;
  out.push({
    detector: 'failure-repeat',
    tiers: 'failure-repeat',
    score,
    count: attempts,
    period: 1,
    since: h.total - first,
    toolId: tool,
    argsHash: h.argsHash(0),
    next: sameCallAgain(h, 0, changed ? 'norm' : 'call', score + 1),
  });
};

/**
 * Is there new work between the calls `newer` and `older` steps ago? Work is
 * something that may have changed what the failing call meets: a new command
 * acknowledged the way its tool acknowledges commands (an edit, a `sed -i`
 * answering what such commands answer), a command made before that now
 * answered differently (`git bisect bad` checking out the next commit), or a
 * wait. Reading something new (a file view, a search, the user's reply, a
 * short computed value such as `299.0`) is information, not a fix; a search
 * that found nothing, notes to itself and failures are neither.
 */
function freshWorkBetween(h: RunHistory, newer: number, older: number): boolean {
  for (let between = newer + 1; between < older; between++) {
    // Waiting lets what the call met clear (a lock released, a quota refilled): a retry after it is no resend.
    if (h.spaced(between)) return true;
    const outcome = h.outcome(between);
    if (h.blocked(between) || outcome === 'error' || outcome === 'empty' || filler(h, between)) continue;
    if (h.calledAlikeBefore(between) ? !h.answeredBefore(between) : !h.informative(between) && h.answeredBefore(between)) return true;
  }
  return false;
}
