import type { TieredDetector } from '../config.js';
import type { RunHistory } from '../history.js';
import { sameCallAgain, type Continuation, type Detector, type DetectorContext, type Evidence } from './evidence.js';

/**
 * Repeats of one call (period 1) and cycles of period p ≥ 2 whose results
 * repeat too, on exact arguments and on normalised ones (`semantic-repeat`);
 * back to back, also on arguments near one another (see nearRepeats).
 * Reads the history's streaming periodicity counters, so it costs one pass
 * over the periods per call.
 *
 * Repeats of a failing call and pending results are left to `retry-storm`
 * and `pending-resubmit`, whose tiers are meant for them: a retry against an
 * outage repeats the same failing call by design. A cycle may end on a
 * failed call, as long as it succeeds somewhere.
 */
export const periodic: Detector = (h, ctx, out) => {
  const latest = h.outcome(0);
  if (latest === 'pending') return;
  const exact1 = h.exactRun(1);
  const norm1 = h.normRun(1);
  // Repeats of a failing call are retry-storm's; a failed call can still close a cycle that succeeds elsewhere
  // (re-read a stale slot, book it, refused, again), so only the period-1 checks are skipped for it.
  if (latest !== 'error') {
    if (norm1 > 0) {
      const calls = norm1 + 1;
      const exact = exact1 === norm1;
      // Results that are only near one another (OCR noise, "9 seconds ago") are weaker evidence than equal ones: one call more.
      const score = sameTextThroughout(h, calls) ? calls : calls - 1;
      // Repeats each made half a minute or more after the last are polls that wait between checks.
      const tiers: TieredDetector = h.allSpaced(calls - 1) ? 'pending-poll' : 'no-progress';
      if (score >= ctx.floor(tiers, h.toolId(0))) {
        out.push(evidence(h, exact ? 'no-progress' : 'semantic-repeat', tiers, 1, score, calls, exact ? 'call' : 'norm'));
        return;
      }
    }
    // A resend in other words (see RunHistory.resentReworded) counts above too, but its answer to other words still counts here.
    // Warning-only evidence: a cycle the same calls also close still gets its own tiers below.
    if (norm1 === 0 || !h.sameNormalisedCall(0, 1)) pushSameAnswer(h, ctx, out);
    const near = nearRepeats(h);
    if (near > norm1 + 1) {
      // Arguments that are only near one another are weaker evidence than equal ones: one call less.
      const tiers: TieredDetector = h.allSpaced(near - 1) ? 'pending-poll' : 'no-progress';
      if (near - 1 >= ctx.floor(tiers, h.toolId(0))) {
        out.push(evidence(h, 'semantic-repeat', tiers, 1, near - 1, near, 'norm'));
        return;
      }
    }
  }
  // Periods shorter than the first whole one have run < p: they are not read.
  for (let p = h.firstFullPeriod(); p !== 0 && p <= h.periods; p++) {
    const run = h.normRun(p);
    // A block of p identical calls is a period-1 repeat, not a cycle.
    if (run < p || norm1 >= p - 1) continue;
    // The cycle must do something besides failing, or it is a retry storm across mirrors (or a retry and its check).
    if (!cycleHasSuccess(h, p)) return;
    const family: TieredDetector = p === 2 ? 'ping-pong' : 'cycle';
    // Checking on a job by its id between other steps (sleep, poll, sleep, poll), or a period that waits half a minute
    // (retry, sleep 90, retry), is waiting.
    // A period that also submits the work again (a pending answer to a call naming no job) is not waiting for it.
    const tiers: TieredDetector = (pollsAJob(h, p) && !resubmitsAJob(h, p)) || waitsEachPeriod(h, p) ? 'pending-poll' : family;
    const exact = h.exactRun(p) >= run;
    const periods = 1 + run / p;
    // A write refused by the breaker is recorded with the receipt it repeats, so the write and its read-back look
    // unchanged from there on: the read-back that held through the earlier receipts is still the longer evidence.
    if (p === 2 && pushReadBack(h, ctx, out, periods)) return;
    if (periods >= ctx.floor(tiers, h.toolId(0))) {
      out.push(evidence(h, exact ? family : 'semantic-repeat', tiers, p, periods, Math.floor(periods), exact ? 'call' : 'norm'));
    }
    return;
  }
  const replay = replayedFrom(h);
  // A replay is the stretch's second period: it warns, and never escalates by itself.
  if (replay > 0 && REPLAY_PERIODS >= ctx.floor('cycle', h.toolId(0))) {
    out.push({ ...evidence(h, 'cycle', 'cycle', replay, REPLAY_PERIODS, REPLAY_PERIODS, 'call'), since: h.total - replay - retakenSteps(h, replay) + 1 });
    return;
  }
  pushReadBack(h, ctx, out, 0);
};

/** Reports a held read-back (see heldReadBack) longer than `than` periods; returns whether it did. */
function pushReadBack(h: RunHistory, ctx: DetectorContext, out: Evidence[], than: number): boolean {
  const readBack = heldReadBack(h);
  // The receipts changed, so the evidence is the read-back alone: one period more than a ping-pong whose results all held.
  const periods = readBack / 2;
  if (readBack === 0 || periods <= than || periods < ctx.floor('ping-pong', h.toolId(0))) return false;
  out.push({ ...evidence(h, 'ping-pong', 'ping-pong', 2, periods, Math.floor(periods + 1), 'call'), since: h.total - readBack - 1 });
  return true;
}

/**
 * A write and its read-back, the same two calls in turn, where the read-back
 * answers the same informative thing every time while the write's receipts
 * change (a fresh id, a version, the row range an append landed in): the
 * write changes nothing the run looks at (an upstream sync re-creates what
 * was merged, an append lands outside the range read back). Returns how many
 * of the latest calls repeat the call two before them (0 when no side held).
 * Pauses and pending answers are waiting, and failures are the retry tiers'.
 */
function heldReadBack(h: RunHistory): number {
  if (h.sameCall(0, 1) || waitsEachPeriod(h, 2)) return 0;
  let run = 0;
  let latestHeld = true;
  let otherHeld = true;
  while (run + 2 < h.size && h.sameCall(run, run + 2) && h.outcome(run) === 'ok' && h.outcome(run + 2) === 'ok') {
    if (!h.sameResult(run, run + 2)) {
      if (run % 2 === 0) latestHeld = false;
      else otherHeld = false;
    }
    run++;
  }
  if (run < 2) return 0;
  return (latestHeld && h.informative(0)) || (otherHeld && h.informative(1)) ? run : 0;
}

/** Steps a replay must take again, call for call and answer for answer, after its return. */
const REPLAY_STEPS = 2;
/**
 * Steps a replay must take again when nothing marks its return: the stretch
 * is its own evidence. Three retaken steps happen in normal runs (a patch
 * script, its check and a revert between two different patches); four have
 * not been seen there.
 */
const UNMARKED_REPLAY_STEPS = 4;
/** A replay is the second period of what it replays. */
const REPLAY_PERIODS = 2;
/**
 * How many steps back the stretch starts that the latest calls replay (0:
 * none). The run came back, by another call, to an answer its tool had
 * given before (a page reached again through a different link), then took
 * again, call for call, REPLAY_STEPS steps or more it had taken before,
 * each getting the answer it got the first time, with other work between
 * the two stretches: it learned nothing the first time. A fixed sequence
 * re-run after a change (edit, test, view) gets new answers; a hub page
 * between new pages replays one step; a run re-running a short sequence
 * with no return before it (a diff and its print, twice) is not coming back
 * to where it was, but one retaking UNMARKED_REPLAY_STEPS steps is (a file
 * restored, then the same search, view and insert, answered as before; a
 * sweep restarted). Pauses, polls and stretches made only of failures are
 * the waiting and retry tiers'. Only a call made before, with its answer, can
 * end a replay, so the scan runs only then.
 */
function replayedFrom(h: RunHistory): number {
  if (h.earlierSameCalls() === 0) return 0;
  for (let distance = REPLAY_STEPS + 1; distance < h.size; distance++) {
    const steps = retakenSteps(h, distance);
    if (steps < REPLAY_STEPS || steps >= distance || steps + 1 >= h.size) continue;
    if (!(steps >= UNMARKED_REPLAY_STEPS || h.echoedAnswer(steps)) || !cycleHasSuccess(h, steps) || waitsEachPeriod(h, steps) || pollsAJob(h, steps)) continue;
    return distance;
  }
  return 0;
}

/** How many of the latest calls retake, in order, the calls `distance` steps before them. */
function retakenSteps(h: RunHistory, distance: number): number {
  let steps = 0;
  while (steps < distance && distance + steps < h.size && retaken(h, steps, distance + steps)) steps++;
  return steps;
}

/** Is the call `back` steps ago the one `earlier` steps ago made again, with the same outcome and answer? */
function retaken(h: RunHistory, back: number, earlier: number): boolean {
  return h.sameCall(back, earlier) && h.outcome(back) === h.outcome(earlier) && h.sameResult(back, earlier);
}

/** Did the latest `calls` calls all get the very same result (not merely near ones)? */
function sameTextThroughout(h: RunHistory, calls: number): boolean {
  for (let back = 1; back < calls; back++) if (!h.sameExactResult(0, back)) return false;
  return true;
}

/**
 * Back-to-back calls near the latest one (a code cell re-run with cosmetic
 * edits) that got its very answer, once one of them was resent unchanged:
 * the agent is re-running one thing. A sweep over a parameter (one query per
 * day) is near call after call too, but never sends a value twice.
 */
function nearRepeats(h: RunHistory): number {
  if (h.outcome(0) !== 'ok') return 1;
  let n = 1;
  let resent = false;
  while (n < h.size && h.similarCall(0, n) && h.outcome(n) === 'ok' && h.sameExactResult(0, n)) {
    resent ||= h.sameCall(n - 1, n);
    n++;
  }
  return resent ? n : 1;
}

/** Does the latest period hold a call made at a waiting pace (a sleep, a long poll, a check after a pause)? */
function waitsEachPeriod(h: RunHistory, p: number): boolean {
  for (let back = 0; back < p; back++) if (h.spaced(back)) return true;
  return false;
}

/** Does one of the latest `calls` calls check on a pending job by its id? */
export function pollsAJob(h: RunHistory, calls: number): boolean {
  for (let back = 0; back < calls && back < h.size; back++) if (h.outcome(back) === 'pending' && h.namesId(back)) return true;
  return false;
}

/** Does one of the latest `calls` calls submit a job: answered pending, naming none by id? */
function resubmitsAJob(h: RunHistory, calls: number): boolean {
  for (let back = 0; back < calls && back < h.size; back++) if (h.outcome(back) === 'pending' && !h.namesId(back)) return true;
  return false;
}

/**
 * `same-answer`: back-to-back calls of the latest call's tool, with
 * arguments that differ but the same informative answer each time: the same
 * question reworded (synonyms, a path spelt three ways). Bare
 * acknowledgements (`{"ok":true}`) are not informative, so a batch of
 * different operations never counts; nor do arguments of one shape that
 * differ in their digits (web-01, web-02: different hosts that answer
 * alike), nor arguments of one subject shape (another vendor, robot or
 * listing) unless the answer names what one of them asked (a company's
 * name respelled, `Acme Corp` then `Acme Corporation EMEA`, answered with
 * the one record that names it), which counts one call less. A result that
 * lists the same items in another order, with other scores, is the same
 * answer (HistoryEntry.itemSetHash), and such a list counts across other
 * tools' calls between (a reply sent, the user's next message: the same
 * hits to a question searched again each turn); any other answer must come
 * back to back. The evidence is the results alone, so its tiers only warn.
 */
function pushSameAnswer(h: RunHistory, ctx: DetectorContext, out: Evidence[]): void {
  if (h.outcome(0) !== 'ok' || !h.informative(0)) return;
  const tool = h.toolId(0);
  // A list of the same hits may come back across turns (a reply sent, the user's next message); other answers must not.
  const acrossTurns = h.sameItems(0, 0);
  let calls = 1;
  /** The streak's earliest call so far (steps back). */
  let prev = 0;
  let respelled = false;
  for (let n = 1; n < h.size; n++) {
    if (h.toolId(n) !== tool) {
      if (acrossTurns) continue;
      break;
    }
    if (!(h.sameExactResult(0, n) || h.sameItems(0, n)) || h.outcome(n) !== 'ok' || h.sameCall(prev, n) || h.takesListedItem(prev)) break;
    // Long arguments far apart (other thoughts logged, other edits applied) are other work acknowledged alike: a
    // question reworded stays near what it was.
    if (h.hasFreeText(prev) && h.hasFreeText(n) && !h.similarCall(prev, n)) break;
    if (h.shapeHash(prev) !== 0 && h.sameShape(prev, n)) {
      // Another thing of one kind (another vendor, robot, listing) answered alike is a sweep: one answer cannot name
      // each thing. An answer that names what one of the two asked is that thing's: the other respelled its name.
      if (!h.namesSubject(prev) && !h.namesSubject(n)) break;
      respelled = true;
    }
    calls++;
    prev = n;
  }
  // A name respelled is weaker evidence than a question reworded: one call more.
  const score = respelled ? calls - 1 : calls;
  if (score < ctx.floor('same-answer', tool)) return;
  // Across turns the streak's first call lies further back than the count says.
  out.push({ ...evidence(h, 'same-answer', 'same-answer', 1, score, score, 'tool'), since: h.total - prev });
}

/**
 * Does the cycle do something besides failing? A call that succeeded or was
 * accepted does; finding nothing does only when nothing failed: a failing
 * booking and a check that finds no booking, twice, is a retry and its
 * check, left to the retry tiers.
 */
function cycleHasSuccess(h: RunHistory, p: number): boolean {
  let failed = false;
  for (let back = 0; back < p; back++) {
    const outcome = h.outcome(back);
    if (outcome === 'ok' || outcome === 'pending') return true;
    if (outcome === 'error') failed = true;
  }
  return !failed;
}

function evidence(
  h: RunHistory,
  detector: Evidence['detector'],
  tiers: TieredDetector,
  period: number,
  score: number,
  count: number,
  match: Continuation['match'],
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
    next: sameCallAgain(h, period - 1, match, nextScore),
  };
}
