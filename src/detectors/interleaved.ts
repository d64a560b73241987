import type { RunHistory } from '../history.js';
import { sameCallAgain, type Detector } from './evidence.js';
import { pollsAJob } from './periodic.js';

/**
 * Filler tells the agent nothing and changes nothing: an answer its tool had
 * given before, from a call made before or from a tool that always answers
 * alike (a "think" tool's acknowledgement). A new command whose output
 * happens to repeat (an edit printing nothing) is an action, not filler, and
 * so is a new call naming a file that its tool acknowledges as it always does
 * ("The file … has been edited.", `{"updated_rows": 1}`), or acknowledged in
 * nothing but its own words ("Entry updated." to `cms_update_field
 * {"entry_id":…}`): a note names no file, and its receipt says more than it.
 * An answer that only hands back a piece of the call's own text (`echo
 * 'Done again.'`) is filler however new: the run learned nothing from it.
 */
export function filler(h: RunHistory, back: number): boolean {
  return h.echoesArgs(back) || (h.answeredBefore(back) && (h.calledBefore(back) || (!h.toolAnswersVary(back) && !h.acknowledgedWork(back))));
}

/**
 * Is there new work between the calls `newer` and `older` steps ago? Work is
 * something that may have changed what a repeated call meets: a new command
 * acknowledged the way its tool acknowledges commands (an edit, a `sed -i`
 * answering what such commands answer), a command made before that now
 * answered differently (`git bisect bad` checking out the next commit), or a
 * wait; a message that took long (free text in its arguments, the user
 * answering it) is no wait. Reading something new (a file view, a search, the user's reply, a
 * short computed value such as `299.0`) is information, not a fix; a search
 * that found nothing, notes to itself and failures are neither. With
 * `pauses` false, only a call that was itself a wait (a sleep, a long poll)
 * is one, not a call made after a pause: for evidence spread over rounds of
 * different calls, where the pause between rounds is the model thinking.
 */
export function freshWorkBetween(h: RunHistory, newer: number, older: number, pauses = true): boolean {
  for (let between = newer + 1; between < older; between++) {
    // Waiting lets what the call met change (a lock released, a file arrived): a retry after it is no resend. A call
    // that only follows a slow attempt (logs read right after a 38 s `compose up` failed) waited for nothing. Nor does
    // a message (free text in the arguments) that took long: that is the other side reading and answering it, a
    // conversation turn, not the run waiting for the world to change.
    if ((pauses ? h.waited(between) : h.lastedLong(between)) && !h.hasFreeText(between)) return true;
    const outcome = h.outcome(between);
    if (h.blocked(between) || outcome === 'error' || outcome === 'empty' || filler(h, between)) continue;
    if (h.calledAlikeBefore(between) ? !h.answeredBefore(between) : !h.informative(between) && h.answeredBefore(between)) return true;
  }
  return false;
}

/**
 * `no-progress` with filler in between: the same call with the same result
 * again and again, separated only by calls that told the agent nothing new
 * (a "think" tool acknowledging each thought, a log call). Nothing between
 * the repeats moved, so they count as if back to back. A single new answer in
 * between is progress and ends the count, unless the latest answer is one the
 * call gave before it: the same message answered otherwise, then as before
 * (a user refusing, another way, then again as at first) went round, not on,
 * and those calls count too, back to that earlier answer only.
 *
 * A lookup that found nothing, asked again, is held to what could change its
 * answer instead: only new work in between (an edit, a wait) ends the count.
 * Reading other things or finding nothing elsewhere meanwhile does not bring
 * into being what was not there, so re-asking between other lookups, or a
 * few times in a row after them, is no progress either. So is a body resent
 * (see resendsABody): reading does not change what writing it again does.
 */
export const interleavedNoProgress: Detector = (h, ctx, out) => {
  const outcome = h.outcome(0);
  // A call made for the first time in the window repeats nothing, whatever the tiers (the cached count is shared).
  if (outcome === 'error' || outcome === 'pending' || h.earlierSameCalls() === 0) return;
  const floor = ctx.floor('no-progress', h.toolId(0));
  const heldToWork = outcome === 'empty' || resendsABody(h);
  // Repeats back to back and nothing else are the periodic detector's.
  if ((!heldToWork && h.exactRun(1) > 0) || h.earlierSameCalls() < floor - 1) return;
  let calls = 1;
  let last = 0;
  let otherAnswers = 0;
  let paced = h.spaced(0);
  for (let back = 1; back < h.size; back++) {
    if (!h.sameCall(0, back)) continue;
    if (!h.sameResult(0, back)) {
      // Answered otherwise in between: counted only if the latest answer is one it gave before that, so the answers
      // went round (a reply that comes back after other replies) rather than moved on (a poll's progress). Once:
      // what came before that earlier answer is another stretch (a steady answer that changed, then came back). A bare
      // value coming back (a random topic drawn twice: cars, golf, golf, cars) is the world's own variety, not a reply.
      if (heldToWork || calls > 1 || !h.informative(0)) break;
      otherAnswers++;
      paced &&= h.spaced(back);
      continue;
    }
    if (heldToWork ? freshWorkBetween(h, last, back) : !onlyFillerBetween(h, last, back)) break;
    calls += 1 + otherAnswers;
    last = back;
    paced &&= h.spaced(back);
    if (otherAnswers > 0) break;
  }
  // Filler that checks on a pending job by id (sleep, poll, sleep, poll), or repeats each made at a waiting pace
  // (a `sleep 90` between lock retries), mean the run is waiting.
  const tiers = pollsAJob(h, last) || paced ? 'pending-poll' : 'no-progress';
  if (calls < ctx.floor(tiers, h.toolId(0)) || calls <= h.exactRun(1) + 1) return;
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

/**
 * Does the latest call carry what it does in its arguments (free text: a
 * file's whole new content, a patch, a script) and get only an
 * acknowledgement back? Sent again unchanged, it does the same thing again;
 * what the run read in between cannot change that, only new work can (an
 * edit it would undo, a wait). A short command (a click on "Add to cart")
 * may do something else on the page the run moved to: it is not held to it.
 */
function resendsABody(h: RunHistory): boolean {
  return h.hasFreeText(0) && !h.informative(0);
}

/** Is everything between the two calls filler, or the latest call again (answered otherwise)? */
function onlyFillerBetween(h: RunHistory, newer: number, older: number): boolean {
  for (let between = newer + 1; between < older; between++) {
    if (!filler(h, between) && !h.sameCall(0, between)) return false;
  }
  return true;
}

/** Has the latest call's tool answered every call of the window alike, other arguments included? */
export function acknowledgesAlike(h: RunHistory): boolean {
  let otherArgs = false;
  for (let back = 1; back < h.size; back++) {
    if (h.toolId(back) !== h.toolId(0)) continue;
    if (!h.sameResult(0, back)) return false;
    otherArgs ||= !h.sameCall(0, back);
  }
  return otherArgs;
}
