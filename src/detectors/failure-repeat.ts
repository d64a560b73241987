import type { RunHistory } from '../history.js';
import { sameCallAgain, type Detector } from './evidence.js';
import { freshWorkBetween } from './interleaved.js';

/**
 * `failure-repeat`: the same (or a near-same) call failing the same
 * deterministic way again (DESIGN §3): a schema or syntax error, a missing
 * required field, a 404 on a made-up id. Unlike an outage, resending will not
 * help, so resending it unchanged is a loop by the third attempt, whatever
 * the run says in between (apologies to the user, notes to itself). Two
 * things earn an attempt of slack each, since they are how fixing looks:
 * new work before it (an edit, then the test again: see freshWorkBetween,
 * and failureMoved for work only the failure shows), and arguments that
 * changed, however little (a corrected body rejected by the same linter).
 * Arguments merely respelled (other spacing or case, one instant written
 * another way: their normalised form is the same) are the same call resent,
 * not a fix. A success or a different failure of the call ends the count,
 * except the success of the very call at its first send: an edit applied,
 * then resent and refused as already made, is work redone, and that first
 * send is one more attempt. Transient failures are `retry-storm`'s.
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
    const refusedAlike = h.outcome(back) === 'error' && h.sameResult(0, back);
    // A call that succeeded only after failing (a slot finally free) restarts the count; one done at its first send
    // and refused since has nothing left to fix, and that send is the count's first attempt.
    const doneAtFirstSend = !refusedAlike && h.outcome(back) === 'ok' && h.sameCall(0, back) && firstSend(h, back);
    if (!refusedAlike && !doneAtFirstSend) break;
    if ((refusedAlike && failureMoved(h, first, back)) || freshWorkBetween(h, first, back)) freshGaps++;
    if (!h.sameNormalisedCall(0, back)) changed = true;
    attempts++;
    first = back;
    if (doneAtFirstSend) break;
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

/** Is the call `back` steps ago the first of its kind (same tool, same or near arguments) in the window? */
function firstSend(h: RunHistory, back: number): boolean {
  for (let earlier = back + 1; earlier < h.size; earlier++) if (h.similarCall(back, earlier)) return false;
  return true;
}

/**
 * Did the very same call, re-run after other calls, fail otherwise than the
 * time before: near the same failure but not it (another error line, a
 * count gone down, an error moved to another line)? Unchanged, a
 * deterministic check fails the same way; failing otherwise, it met
 * something changed in between, even when nothing between reads as work (an
 * edit answered with a snippet of the file reads like a file view). That is
 * a coding agent re-running its typecheck or tests after each edit. The same
 * failure after the edits stays a resend (the edits did not touch its
 * cause), and so does a failure that changes with arguments resent back to
 * back: the change of arguments explains it.
 */
function failureMoved(h: RunHistory, newer: number, older: number): boolean {
  return older > newer + 1 && h.sameCall(newer, older) && !h.sameExactResult(newer, older);
}
