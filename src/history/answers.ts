import { LONG_TEXT_SHINGLES } from '../fingerprint/sketch.js';
import { equalResultBins, grewFrom, RESULT_DRIFT_BINS, RESULT_NEAR_BINS, RESULT_NEAR_BINS_SHORT, shinglesAt } from './nearness.js';
import * as slot from './slot.js';

/**
 * Answer numbers: calls whose results are the same answer (equal, or long
 * texts near enough that the difference is noise) share the number kept in
 * their slot's F_ANSWER word, so every "same result" is one comparison.
 */

// Module-local copies of the slot layout: see slot.ts on why.
const { F_ANSWER, F_ARGS_HI, F_ARGS_LO, F_KIND, F_PAGE, F_RES_HI, F_RES_LO, F_TOOL_FLAGS, FLAG_BLOCKED, KIND_RESULT_NEAR, SLOT } = slot;

/** Answer numbers of results compared by hash have this bit; numbers handed out to sketched answers do not. */
export const EXACT_ANSWER = 0x80000000;
/** answerOf's reply for a sketched answer near no earlier one: RunHistory hands out the next number. */
export const NEW_ANSWER = -1;

/**
 * The answer number of the call just written at offset `o`: that of an
 * earlier call of the tool with the very same result, or with the very same
 * arguments and the same page view (pageStateHash), else that of an
 * answer whose first call in the window is near this result, else
 * NEW_ANSWER for the caller to number. Comparing with an answer's first
 * call, not its latest, is what tells noise from progress: noise (OCR
 * wording, "9 seconds ago") stays near the first reading, while a growing
 * log or a moving table drifts away from it, however small each step.
 */
export function answerOf(b: Uint32Array, o: number, tool: number, size: number, window: number, firsts: number[]): number {
  const resHi = b[o + F_RES_HI];
  const resLo = b[o + F_RES_LO];
  const near = (b[o + F_KIND]! & KIND_RESULT_NEAR) !== 0;
  const page = b[o + F_PAGE]!;
  // Results too short to compare by sketch, showing no page, are their hash: equal hashes, the same answer, no scan.
  // A blocked call (recorded with the hash of the answer it stands for, and no sketch) takes that answer's number.
  if (!near && page === 0 && (b[o + F_TOOL_FLAGS]! & FLAG_BLOCKED) === 0) return ((resHi! ^ resLo!) | EXACT_ANSWER) >>> 0;
  firsts.length = 0;
  const argsHi = b[o + F_ARGS_HI];
  const argsLo = b[o + F_ARGS_LO];
  let s = o;
  for (let back = 1; back < size; back++) {
    s = s === 0 ? (window - 1) * SLOT : s - SLOT;
    if (b[s + F_TOOL_FLAGS]! >>> 8 !== tool) continue;
    if (b[s + F_RES_HI] === resHi && b[s + F_RES_LO] === resLo) return b[s + F_ANSWER]!;
    // The same action shown the same page view (address, title, place on the page) met an unchanged page: the
    // text under the header is a reading made anew each visit, and a screenshot's transcriptions can be far apart.
    if (page !== 0 && b[s + F_PAGE] === page && b[s + F_ARGS_HI] === argsHi && b[s + F_ARGS_LO] === argsLo) return b[s + F_ANSWER]!;
    if (near && (b[s + F_KIND]! & KIND_RESULT_NEAR) !== 0) firsts.push(s);
  }
  // Newest first: near the latest reading of an answer, not grown out of it, and not drifted away from its first reading.
  for (let i = 0; i < firsts.length; i++) {
    const f = firsts[i]!;
    const equal = equalResultBins(b, f, o);
    if (equal < 0) continue;
    // Short texts need more in common: a shared header (a file name, a page title) is most of them.
    const shingles = Math.min(shinglesAt(b, f), shinglesAt(b, o));
    if (equal < (shingles < LONG_TEXT_SHINGLES ? RESULT_NEAR_BINS_SHORT : RESULT_NEAR_BINS) || grewFrom(b, f, o, equal)) continue;
    const answer = b[f + F_ANSWER]!;
    let first = f;
    for (let j = i + 1; j < firsts.length; j++) if (b[firsts[j]! + F_ANSWER] === answer) first = firsts[j]!;
    if (first === f || equalResultBins(b, first, o) >= RESULT_DRIFT_BINS) return answer;
  }
  if (!near) return ((resHi! ^ resLo!) | EXACT_ANSWER) >>> 0;
  return NEW_ANSWER;
}

/** Do the slots at two offsets have the same answer number? */
export function resultsAlike(b: Uint32Array, x: number, y: number): boolean {
  return b[x + F_ANSWER] === b[y + F_ANSWER];
}
