import type { RunHistory } from '../history.js';
import { sameCallAgain, type Continuation, type Detector, type Evidence } from './evidence.js';
import { acknowledgesAlike, filler, freshWorkBetween } from './interleaved.js';

/**
 * Different questions (a call and its answer) a run must have asked again
 * before its re-asking is a round and not a hub: browsing back to one
 * listing page between new products asks one question again, however often.
 */
const ROUND_QUESTIONS = 3;

/**
 * Different page views a run must have come back to before its returns are
 * a round and not a hub: browsing back to one listing between new pages
 * comes back to one view, however often.
 */
const ROUND_PAGES = 2;

/** Calls counted, newest first (reused: detectors run one at a time). */
const counted: number[] = [];

/**
 * Did the call `back` steps ago ask again for what the run had been told,
 * with nothing done since that could have changed the answer? A call like
 * an earlier one got that call's answer, something specific (an informative
 * answer, or "not found"), and no new work (an edit, a state change, a wait,
 * see freshWorkBetween) came between the two. A pause before a call is no
 * wait here: the rounds of a slow model are that far apart.
 */
function askedAgainForNothing(h: RunHistory, back: number): boolean {
  const from = h.reaskedFrom(back);
  if (from === 0) return false;
  const outcome = h.outcome(back);
  if (outcome === 'ok' ? !h.informative(back) : outcome !== 'empty') return false;
  return !freshWorkBetween(h, back, back + from, false);
}

/**
 * Among the calls after the one `since` steps ago, is there a question that
 * is not asked again for nothing, nor filler (a sleep, a note)? Rounds that
 * only ever repeat the same questions, with waits or pauses between them
 * (three jobs polled each minute), are a cycle, read with its pace by the
 * periodic detector.
 */
function asksSomethingElse(h: RunHistory, since: number): boolean {
  for (let back = 0; back < since; back++) if (!h.askedAgain(back) && !filler(h, back)) return true;
  return false;
}

/**
 * `revisit`: the run asks again, round after round, for things it already
 * had answered, among a few new questions: the same lookups re-requested
 * each round with the same answers, lookups that found nothing asked again.
 * Counts the calls in the window that asked again for nothing (see
 * askedAgainForNothing). They must span ROUND_QUESTIONS different questions
 * — a hub page revisited between new pages, a poll, one lookup redone are
 * one question, and other families' — and the stretch since the first of
 * those questions was first asked must have brought no more new informative
 * answers than there were such calls: a run that re-checks a few things
 * while most of its calls bring something new is working. The run must
 * also be asking something else meanwhile (see asksSomethingElse).
 * Acknowledgements, failures and pending answers are left to the families
 * that read them. The evidence is spread over several calls, any of which
 * might be the one that finds something, so its tiers only warn. The same
 * family also reads a browsing run coming back to the pages it has read
 * (see comesBack), a conversation going round (see goesRound) and an ask
 * left standing (see restatesAsk).
 */
export const revisit: Detector = (h, ctx, out) => {
  asksAgain(h, ctx, out);
  comesBack(h, ctx, out);
  goesRound(h, ctx, out);
  restatesAsk(h, ctx, out);
};

const asksAgain: Detector = (h, ctx, out) => {
  if (!askedAgainForNothing(h, 0)) return;
  h.noteAskedAgain();
  counted.length = 0;
  let questions = 0;
  let firstAsked = 0;
  for (let back = 0; back < h.size; back++) {
    if (!h.askedAgain(back)) continue;
    // Different questions are only counted up to the round's size: that is all the rule needs to know.
    let newQuestion = questions < ROUND_QUESTIONS;
    for (let i = 0; i < counted.length && newQuestion; i++) newQuestion = !(h.similarCall(counted[i]!, back) && h.sameResult(counted[i]!, back));
    if (newQuestion) questions++;
    counted.push(back);
    // A question first asked before the window's oldest call: the stretch is all the window holds.
    const from = h.reaskedFrom(back);
    firstAsked = Math.max(firstAsked, from === 0 ? h.size - 1 : back + from);
  }
  const calls = counted.length;
  if (questions < ROUND_QUESTIONS || calls < ctx.floor('revisit', h.toolId(0)) || !asksSomethingElse(h, counted[calls - 1]!)) return;
  let news = 0;
  for (let back = 0; back <= firstAsked; back++) if (h.outcome(back) === 'ok' && h.informative(back) && h.newAnswer(back)) news++;
  if (news > calls) return;
  out.push(evidence(h, calls, h.total - firstAsked, sameCallAgain(h, 0, 'call', calls + 1)));
};

/**
 * The other reading of `revisit`: a browsing run comes back, by whatever
 * route (a reworded search, another link), to page views it has already
 * read (history.returnedToPage: the same page header, the same place on the
 * page), again and again. The page's text cannot tell this: a model's
 * reading of one unchanged screenshot differs from visit to visit. Counts
 * the calls in the window that came back; they must come back to
 * ROUND_PAGES different views or more, so that a listing visited between new
 * pages is one view, however often the run comes back to it. A run that
 * waits among its returns (a sleep, a long poll) is watching pages change,
 * at a pace the periodic detector reads.
 */
const comesBack: Detector = (h, ctx, out) => {
  if (!h.returnedToPage(0)) return;
  counted.length = 0;
  let pages = 0;
  for (let back = 0; back < h.size; back++) {
    if (!h.returnedToPage(back)) continue;
    let newPage = pages < ROUND_PAGES;
    for (let i = 0; i < counted.length && newPage; i++) newPage = !h.samePage(counted[i]!, back);
    if (newPage) pages++;
    counted.push(back);
  }
  const calls = counted.length;
  if (pages < ROUND_PAGES || calls < ctx.floor('revisit', h.toolId(0)) || waitsBetween(h, counted[calls - 1]!)) return;
  // Where a run comes back next is anyone's guess: no call stands for the pattern.
  out.push(evidence(h, calls, h.total - counted[calls - 1]!, undefined));
};

/**
 * The third reading of `revisit`: a conversation going round. The run says
 * again what it said before, in the same or other words, and is answered as
 * it was, in the same or other words (history.exchangeAlike: a message and
 * its reply each at half their bigrams or more from the earlier ones): an
 * agent giving the same instructions again and a user reporting the same
 * failure again, with other turns between. Either side alone is ordinary —
 * a refusal restated to each new plea, "still not working" after each new
 * fix — both together are the same exchange held again. Counts such
 * exchanges back from the latest while the run did nothing between them
 * (see actedBetween). Two counted back to back are a batch of one command
 * over values (a month at a time, each answered "SUCCESS"), not a
 * conversation: the count ends there. A tool that answered every call of
 * the window alike holds no conversation at all. Spread over turns whose wording
 * moves, so it only warns, and the next rewording cannot be foretold.
 */
const goesRound: Detector = (h, ctx, out) => {
  if (h.outcome(0) !== 'ok' || !h.hasFreeText(0)) return;
  let calls = 1;
  let last = 0;
  for (let back = 1; back < h.size; back++) {
    if (h.outcome(back) !== 'ok' || !h.exchangeAlike(0, back)) continue;
    if (back === last + 1 || actedBetween(h, last, back)) break;
    calls++;
    last = back;
  }
  // A tool that answers every message alike (a todo list rewritten, "Todos have been modified successfully") is
  // acknowledging them, not replying: there is no other side to hold the exchange with.
  if (calls < ctx.floor('revisit', h.toolId(0)) || acknowledgesAlike(h)) return;
  out.push(evidence(h, calls, h.total - last, undefined));
};

/**
 * The fourth reading of `revisit`: an ask left standing. The agent asks
 * someone for a thing, is given a value the run already had (the same zip
 * code, the same email, again), and asks for the same thing again without
 * naming it (src/standing-ask.ts reads the turns; history.restatedAsk marks
 * them). Counts the asks since the conversation was last interrupted (by a
 * call that is neither a turn nor a lookup made again and answered alike):
 * the restated ones back to the first, and the ask the first answer was
 * given to. A refusal restated to each new plea is never answered with a
 * value, so it counts nothing. Only warns: the next reply may be read.
 */
const restatesAsk: Detector = (h, ctx, out) => {
  if (h.restatedAsk(0) === 0) return;
  let asks = 1;
  let first = 0;
  for (let back = 0; back < h.size; back++) {
    const restated = h.restatedAsk(back);
    if (restated === 0) continue;
    asks++;
    first = back;
    if (restated === 1) break;
  }
  if (asks < ctx.floor('revisit', h.toolId(0))) return;
  // Which words the next ask takes is anyone's guess: no call stands for the pattern.
  out.push(evidence(h, asks, h.total - first, undefined));
};

/**
 * Did the run act between the calls `newer` and `older` steps ago: a new
 * command acknowledged (an edit, a state change: neither informative nor
 * filler), or a call that was itself a wait (a sleep, a long poll)? A reply
 * read, a lookup made, is information, not action.
 */
function actedBetween(h: RunHistory, newer: number, older: number): boolean {
  for (let between = newer + 1; between < older; between++) {
    if (h.lastedLong(between)) return true;
    if (h.outcome(between) === 'ok' && !h.informative(between) && !filler(h, between)) return true;
  }
  return false;
}

function evidence(h: RunHistory, calls: number, since: number, next: Continuation | undefined): Evidence {
  return {
    detector: 'revisit',
    tiers: 'revisit',
    score: calls,
    count: calls,
    period: 1,
    since,
    toolId: h.toolId(0),
    argsHash: h.argsHash(0),
    next,
  };
}

/** Did a call since the one `since` steps ago (that one included) wait itself: a sleep, a long poll? */
function waitsBetween(h: RunHistory, since: number): boolean {
  for (let back = 0; back <= since; back++) if (h.lastedLong(back)) return true;
  return false;
}
