import type { TieredDetector } from '../config.js';
import type { RunHistory } from '../history.js';
import type { Outcome } from '../types.js';
import { sameCallAgain, type Continuation, type Detector, type DetectorContext, type Evidence } from './evidence.js';
import { filler } from './interleaved.js';

/**
 * Streak detectors: the latest calls share an outcome. They scan back at
 * most one window and stop at the first call that breaks the streak.
 */

/**
 * Back-to-back calls identical to the latest one that all ended with
 * `outcome` (and, when asked, gave the same answer: equal, or, call after
 * call, a pending answer given again with a fresh handle: RunHistory.resubmitted).
 */
function sameCallStreak(h: RunHistory, outcome: Outcome, sameResult: boolean): number {
  let n = 1;
  let resubmitted = true;
  while (n < h.size && h.sameCall(0, n) && h.outcome(n) === outcome) {
    resubmitted &&= h.resubmitted(n - 1);
    if (sameResult && !resubmitted && !h.sameResult(0, n)) break;
    n++;
  }
  return n;
}

function streakEvidence(h: RunHistory, detector: TieredDetector, tiers: TieredDetector, n: number): Evidence {
  return {
    detector,
    tiers,
    score: n,
    count: n,
    period: 1,
    since: h.total - n + 1,
    toolId: h.toolId(0),
    argsHash: h.argsHash(0),
    next: sameCallAgain(h, 0, 'call', n + 1),
  };
}

/**
 * `retry-storm`: the same call failing back to back, whatever the failures
 * say. Retries against an outage look exactly like this, so its tiers are far
 * higher than a loop's.
 */
export const retryStorm: Detector = (h, ctx, out) => {
  if (h.outcome(0) !== 'error') return;
  const n = sameCallStreak(h, 'error', false);
  if (n >= ctx.floor('retry-storm', h.toolId(0))) out.push(streakEvidence(h, 'retry-storm', 'retry-storm', n));
};

/**
 * `pending-resubmit`: a call that answered "pending" sent again and again
 * instead of waited for, getting the same answer (fresh job ids and
 * timestamps are masked, so a resubmission looks the same; an answer that
 * differs only in the handle each submission is handed is the same too:
 * RunHistory.resubmitted). A status poll
 * whose progress moves is not counted: its results differ. A call that names
 * its job by id checks on work that exists, repeats each made half a minute
 * or more after the last wait between checks, and a call whose earlier
 * "pending" answers kept moving (a count that climbed, then stalls) watches a job:
 * all are waiting, reported as `pending-poll` at its own patient tiers.
 */
export const pendingResubmit: Detector = (h, ctx, out) => {
  if (h.outcome(0) !== 'pending') return;
  const n = sameCallStreak(h, 'pending', true);
  const waiting = h.namesId(0) || h.allSpaced(n - 1) || answeredPendingOtherwise(h, n);
  const detector: TieredDetector = waiting ? 'pending-poll' : 'pending-resubmit';
  if (n >= ctx.floor(detector, h.toolId(0))) out.push(streakEvidence(h, detector, detector, n));
};

/**
 * Before its latest streak of `n` identical answers, did the same call answer
 * "pending" in at least two other ways in a row (a count that climbed)? One
 * change is a job's first answer giving way to its stuck one; two are motion.
 */
function answeredPendingOtherwise(h: RunHistory, n: number): boolean {
  let changes = 0;
  for (let back = n; back < h.size && h.sameCall(0, back) && h.outcome(back) === 'pending'; back++) {
    if (!h.sameResult(back - 1, back) && !h.resubmitted(back - 1) && ++changes >= 2) return true;
  }
  return false;
}

/**
 * `empty-streak`: finding nothing again and again, in two ways. One tool
 * finding nothing call after call with arguments that differ only in their
 * digits — made-up ids queried one after another — counts calls at the
 * `empty-streak` tiers. Empty answers to arguments of other shapes (grepping
 * each file of a listing, checking each of several flags) are exploration:
 * they neither count nor break that streak. Calls of other tools in between
 * do neither either; a non-empty answer of the tool ends it.
 *
 * And the same question asked again in other words (see
 * RunHistory.reworded), of this tool or another, finding nothing each time
 * counts asks at the `repeat` tiers: it is the same ask repeated, near-same
 * instead of equal. A reworded ask that found something ends that streak;
 * asks about other things (other names, other words) do not touch it.
 *
 * And a run finding nothing ask after ask, whatever it asks of whichever
 * tool, that has asked again, in the very same words, something that found
 * nothing earlier in that streak (RunHistory.sameWords: a title searched
 * twice, a name searched and then looked up): see askedAgainForNothing.
 */
export const emptyStreak: Detector = (h, ctx, out) => {
  if (h.outcome(0) !== 'empty') return;
  sameShapeStreak(h, ctx, out);
  rewordedStreak(h, ctx, out);
  askedAgainForNothing(h, ctx, out);
};

function sameShapeStreak(h: RunHistory, ctx: DetectorContext, out: Evidence[]): void {
  const tool = h.toolId(0);
  let n = 1;
  let first = 0;
  for (let back = 1; back < h.size; back++) {
    if (h.toolId(back) !== tool) continue;
    if (h.outcome(back) !== 'empty') break;
    // A lookup of the next item of a listing the run was shown (deposit after deposit of a statement) is a sweep.
    if (!h.sameShape(0, back) || h.takesListedItem(back)) continue;
    n++;
    first = back;
  }
  // Empty answers at a waiting pace (a long poll for an approval that times out) are waiting, not guessing.
  const tiers: TieredDetector = h.allSpaced(first + 1) ? 'pending-poll' : 'empty-streak';
  if (n < ctx.floor(tiers, tool)) return;
  const next = sameCallAgain(h, 0, 'tool', n + 1);
  next.shapeHash = h.shapeHashText(0);
  out.push(emptyEvidence(h, tiers, n, first, next));
}

function rewordedStreak(h: RunHistory, ctx: DetectorContext, out: Evidence[]): void {
  if (!h.hasWords(0)) return;
  let n = 1;
  let first = 0;
  for (let back = 1; back < h.size; back++) {
    if (!h.reworded(0, back)) continue;
    if (h.outcome(back) !== 'empty') break;
    n++;
    first = back;
  }
  const tiers: TieredDetector = h.allSpaced(first + 1) ? 'pending-poll' : 'repeat';
  if (n < ctx.floor(tiers, h.toolId(0))) return;
  // Only the same words again are sure to continue the streak: the next rewording cannot be told in advance.
  out.push(emptyEvidence(h, tiers, n, first, sameCallAgain(h, 0, 'call', n + 1)));
}

/**
 * The run's latest asks (calls with a word signature) all found nothing, back
 * to back, and among them one asked again in the very same words what an
 * earlier one of them had found nothing for: the run is going round what is
 * not there, not working down a list. The asks after the streak's first count
 * at the `repeat` tiers, so the fifth warns. A sweep (each day, region, file
 * or string asked once) never asks the same thing twice, however long it
 * finds nothing; a rewording that finds the page, or any call that answers
 * otherwise, ends the streak.
 */
function askedAgainForNothing(h: RunHistory, ctx: DetectorContext, out: Evidence[]): void {
  if (!h.hasWords(0)) return;
  let n = 1;
  while (n < h.size && h.outcome(n) === 'empty' && h.hasWords(n)) n++;
  const score = n - 1;
  const tiers: TieredDetector = h.allSpaced(n) ? 'pending-poll' : 'repeat';
  if (score < ctx.floor(tiers, h.toolId(0)) || !asksTwiceWithin(h, n)) return;
  out.push(emptyEvidence(h, tiers, score, n - 1, sameCallAgain(h, 0, 'call', score + 1)));
}

/** Do two of the latest `calls` calls ask in the very same words? */
function asksTwiceWithin(h: RunHistory, calls: number): boolean {
  for (let a = 0; a < calls - 1; a++) for (let b = a + 1; b < calls; b++) if (h.sameWords(a, b)) return true;
  return false;
}

function emptyEvidence(h: RunHistory, tiers: TieredDetector, n: number, first: number, next: Continuation): Evidence {
  return {
    detector: 'empty-streak',
    tiers,
    score: n,
    count: n,
    period: 1,
    since: h.total - first,
    toolId: h.toolId(0),
    argsHash: h.argsHash(0),
    next,
  };
}

/**
 * `same-error`: one tool failing with the same error while the arguments keep
 * changing (different commands, the same "permission denied"). Scores the
 * distinct argument variants tried; retries of one call are `retry-storm`.
 * When the failure is deterministic and every action of the run fails that
 * way, tool after tool with nothing but notes in between (a text game's
 * "Invalid action!" for clicks, then searches, then exits), the variants of
 * all those tools count together.
 */
export const sameError: Detector = (h, ctx, out) => {
  if (h.outcome(0) !== 'error') return;
  const tool = h.toolId(0);
  let streak = toolErrorStreak(h);
  let variants = distinctCalls(h, streak);
  if (h.failure(0) === 'deterministic') {
    const everyAction = runErrorStreak(h);
    const across = distinctCalls(h, everyAction);
    if (across > variants) {
      streak = everyAction;
      variants = across;
    }
  }
  if (variants < 2 || variants < ctx.floor('same-error', tool)) return;
  out.push({
    detector: 'same-error',
    tiers: 'same-error',
    score: variants,
    count: variants,
    period: 1,
    since: h.total - streak[streak.length - 1]!,
    toolId: tool,
    argsHash: h.argsHash(0),
    next: sameCallAgain(h, 0, 'tool', variants + 1),
  });
};

/** The latest call's tool failing with its answer, newest first (steps back), until the tool answered otherwise. */
function toolErrorStreak(h: RunHistory): number[] {
  const tool = h.toolId(0);
  const streak: number[] = [0];
  // A call carrying text (an edit's old and new text) fails again and again while the agent reads around it: the
  // tool's other operations (a `view` between failed `str_replace`s) do not end the streak.
  const carriesText = h.hasFreeText(0);
  for (let back = 1; back < h.size; back++) {
    if (h.toolId(back) !== tool) continue;
    if (h.outcome(back) === 'error' && h.sameResult(0, back)) streak.push(back);
    else if (!carriesText || h.sameOperation(0, back)) break;
  }
  return streak;
}

/**
 * Calls of any tool failing with the latest call's answer, newest first, back
 * to the first call that was neither such a failure nor filler (a note to
 * itself): a success, a different failure or a new answer ends it. Across
 * tools only short answers match, by equality (history numbers long ones per
 * tool).
 */
function runErrorStreak(h: RunHistory): number[] {
  const streak: number[] = [0];
  for (let back = 1; back < h.size; back++) {
    if (h.outcome(back) === 'error') {
      if (!h.sameResult(0, back)) break;
      streak.push(back);
    } else if (!filler(h, back)) break;
  }
  return streak;
}

/**
 * How many of the calls (steps back) differ from every newer one in tool or
 * arguments. A call that took the next item of a listing and failed naming it
 * (a volume "attached to i-…", a branch that "does not exist") is a sweep's
 * answer about that item, not another try: it is no variant.
 */
function distinctCalls(h: RunHistory, calls: readonly number[]): number {
  let n = 0;
  for (let i = 0; i < calls.length; i++) {
    if (h.takesListedItem(calls[i]!)) continue;
    let fresh = true;
    for (let j = 0; j < i; j++) {
      if (h.sameCall(calls[i]!, calls[j]!)) {
        fresh = false;
        break;
      }
    }
    if (fresh) n++;
  }
  return n;
}
