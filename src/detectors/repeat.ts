import { sameCallAgain, type Detector } from './evidence.js';
import { acknowledgesAlike, filler } from './interleaved.js';
import { pollsAJob } from './periodic.js';

/**
 * `repeat`: the same call made again and again within the window, not back
 * to back, with results that keep coming back (a poll flip-flopping between
 * two states, a lookup redone between other steps). Scores the occurrences
 * whose result the call had already returned; a call whose results keep
 * changing is making progress and scores nothing, and so is a check made
 * after each new command that did something (verification).
 */
export const repeat: Detector = (h, ctx, out) => {
  const outcome = h.outcome(0);
  // A call made for the first time in the window repeats nothing, whatever the tiers (the cached count is shared).
  if (outcome === 'error' || outcome === 'pending' || h.earlierSameCalls() === 0) return;
  const floor = ctx.floor('repeat', h.toolId(0));
  // Every repeat of a result needs an occurrence, so too few occurrences cannot score: count before collecting.
  if (h.earlierSameCalls() < floor - 1) return;
  // Failures are retry-storm's: a check that failed until it finally succeeded is progress.
  // Progress resets the count: occurrences before a call that got a new answer (a commit, a page) do not count.
  const seen: number[] = [0];
  // A check after each new piece of work (update chunk 1, check, update chunk 2, check) verifies; it is no loop. A
  // check that failed (the script crashed before the first fix) is one of the checks: its gap counts like the others.
  let checks = 1;
  let gapsWithFreshWork = 0;
  let freshInGap = false;
  let echoInGap = false;
  let echoed = false;
  let oldest = 0;
  for (let back = 1; back < h.size; back++) {
    if (h.sameCall(0, back)) {
      oldest = back;
      if (h.outcome(back) !== 'error') seen.push(back);
      checks++;
      if (freshInGap) gapsWithFreshWork++;
      echoed ||= echoInGap;
      freshInGap = false;
      echoInGap = false;
    } else {
      echoInGap ||= h.echoedAnswer(back);
      if (freshInGap) continue;
      // Work done since the last check (one call of it is enough to know): a new answer, or a new command acknowledged
      // as before (an update of the next chunk). A "think" note told nothing, and neither did the same informative
      // answer to new arguments (a reworded search).
      freshInGap = !h.answeredBefore(back) || (!filler(h, back) && !h.informative(back));
    }
  }
  // A note to itself (its tool acknowledges every call alike: a "think" answered "OK.") says nothing about the state, so
  // its repeats only show a loop when most rounds around them went nowhere; a check's own answer shows it at once.
  if (gapsWithFreshWork === checks - 1 || (2 * gapsWithFreshWork > checks - 1 && acknowledgesAlike(h))) return;
  // Between two checks the run tried something new and was told what it had been told (another commit command:
  // "nothing to commit"): the round went nowhere, and the check's count runs one occurrence ahead.
  const ahead = echoed ? 1 : 0;
  if (seen.length - 1 + ahead < floor) return;
  // Back-to-back repeats are no-progress's; this detector is for interleaved ones. Nothing else between any two of
  // them (a table polled while its rows drift, one answer after another) is back to back as much as one latest streak.
  if (h.exactRun(1) + 1 >= seen.length || oldest === checks - 1) return;
  // A result the call never gave before is progress: nothing to count.
  if (!seen.some((back) => back !== 0 && h.sameResult(0, back))) return;
  let stale = 0;
  for (let i = 0; i < seen.length; i++) {
    for (let j = i + 1; j < seen.length; j++) {
      if (h.sameResult(seen[i]!, seen[j]!)) {
        stale++;
        break;
      }
    }
  }
  // Between two of its checks the run polled a pending job by id, or every check came at a waiting pace: it is waiting.
  // The pace of the oldest check is that of whatever came before the checks began (nothing, at a run's first call).
  const tiers = pollsAJob(h, seen[1]!) || seen.every((back, i) => i === seen.length - 1 || h.spaced(back)) ? 'pending-poll' : 'repeat';
  const score = stale + (tiers === 'repeat' ? ahead : 0);
  if (score < ctx.floor(tiers, h.toolId(0))) return;
  out.push({
    detector: 'repeat',
    tiers,
    score,
    count: seen.length,
    period: 1,
    since: h.total - seen[seen.length - 1]!,
    toolId: h.toolId(0),
    argsHash: h.argsHash(0),
    next: sameCallAgain(h, 0, 'call', score + 1),
  });
};
