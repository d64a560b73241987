import { resultsAlike } from './answers.js';
import { argsAlike, resentReworded, rewordedAnswer } from './nearness.js';
import * as slot from './slot.js';

/**
 * The streaming periodicity counters RunHistory keeps after its ring
 * (RunHistory.exactRun, RunHistory.normRun), brought up to date by one pass
 * over the periods as each call is pushed.
 */

// Module-local copies of the slot layout: see slot.ts on why.
const {
  F_ARGS_HI,
  F_ARGS_LO,
  F_KIND,
  F_NORM_HI,
  F_NORM_LO,
  F_TOOL_FLAGS,
  FLAG_ANSWERED_BEFORE,
  KIND_REASKED_SHIFT,
  SLOT,
  TOOL_AND_OUTCOME,
} = slot;

/**
 * The word before the exact counters (they start at period 1) holds the shortest period p >= 2 whose normalised
 * counter has reached p (a whole period repeated), or 0: the cycle search starts there instead of reading every counter
 * (RunHistory.firstFullPeriod).
 */
export const FIRST_FULL_PERIOD = 0;
/**
 * The word before the normalised counters (period 0 has none either) holds how many earlier calls in the window have
 * the latest call's tool and arguments (RunHistory.earlierSameCalls), which the same pass compares anyway.
 */
export const SAME_CALLS = 0;

/**
 * Compares the call just written at `latest` with the call p steps before it
 * for every period p, counting on or resetting the exact and normalised
 * counters at `countersAt`, and marks the call with what the same pass saw:
 * how many steps back a call like it got the same answer (KIND_REASKED_SHIFT)
 * and whether its tool had given that answer before (FLAG_ANSWERED_BEFORE,
 * also returned); notes the shortest whole period (FIRST_FULL_PERIOD) and
 * counts the earlier calls with the same tool and arguments (SAME_CALLS).
 */
export function updatePeriodicity(b: Uint32Array, latest: number, window: number, total: number, periods: number, countersAt: number): boolean {
  const exact = countersAt;
  const norm = exact + periods + 1;
  // Locals: writes into the same typed array keep V8 from caching these reads.
  // Same tool and outcome: the tool bits and the two outcome bits of the shared word.
  const toolOutcome = b[latest + F_TOOL_FLAGS]! & TOOL_AND_OUTCOME;
  const argsHi = b[latest + F_ARGS_HI]!;
  const argsLo = b[latest + F_ARGS_LO]!;
  const tool = toolOutcome >>> 8;
  const reach = Math.min(periods, total - 1);
  let reasked = 0;
  let answeredBefore = false;
  let firstFull = 0;
  let sameCalls = 0;
  let other = latest;
  // The latest call made again right after itself is no step of a longer cycle: back to back, answerOf alone decides.
  const before = latest === 0 ? (window - 1) * SLOT : latest - SLOT;
  const afterItself = reach > 0 && b[before + F_TOOL_FLAGS]! >>> 8 === tool && b[before + F_ARGS_HI] === argsHi && b[before + F_ARGS_LO] === argsLo;
  for (let p = 1; p <= reach; p++) {
    // Step one slot back through the ring instead of a modulo per period.
    other = other === 0 ? (window - 1) * SLOT : other - SLOT;
    const flags = b[other + F_TOOL_FLAGS]!;
    const sameTool = flags >>> 8 === tool;
    const sameCall = sameTool && b[other + F_ARGS_HI] === argsHi && b[other + F_ARGS_LO] === argsLo;
    if (sameCall) sameCalls++;
    const sameToolAnswer = sameTool && resultsAlike(b, latest, other);
    answeredBefore ||= sameToolAnswer;
    const sameAnswer = sameToolAnswer && (flags & TOOL_AND_OUTCOME) === toolOutcome;
    const normEqual = b[other + F_NORM_HI] === b[latest + F_NORM_HI] && b[other + F_NORM_LO] === b[latest + F_NORM_LO];
    const sameNorm = sameAnswer && (normEqual || resentReworded(b, latest, other));
    const sameExact = sameNorm && sameCall;
    // A step of a cycle asked again verbatim and answered in other words (a model's verdict on the same search
    // results, restated) is the same step: see rewordedAnswer.
    const sameStep =
      sameExact ||
      (!afterItself && !sameToolAnswer && sameCall && (flags & TOOL_AND_OUTCOME) === toolOutcome && rewordedAnswer(b, latest, other));
    b[exact + p] = sameStep ? b[exact + p]! + 1 : 0;
    const normRun = sameNorm || sameStep ? b[norm + p]! + 1 : 0;
    b[norm + p] = normRun;
    if (firstFull === 0 && p >= 2 && normRun >= p) firstFull = p;
    if (reasked === 0 && sameAnswer && (normEqual || argsAlike(b, latest, other))) reasked = p;
  }
  // push wrote this call's kind and flags afresh, with these bits clear.
  b[latest + F_KIND] = b[latest + F_KIND]! | (reasked << KIND_REASKED_SHIFT);
  if (answeredBefore) b[latest + F_TOOL_FLAGS] = b[latest + F_TOOL_FLAGS]! | FLAG_ANSWERED_BEFORE;
  for (let p = reach + 1; p <= periods; p++) {
    b[exact + p] = 0;
    b[norm + p] = 0;
  }
  b[exact + FIRST_FULL_PERIOD] = firstFull;
  b[norm + SAME_CALLS] = sameCalls;
  return answeredBefore;
}
