import {
  binsForSimilarity,
  DRIFT_SIMILARITY,
  equalBins,
  EXCHANGE_SIMILARITY,
  LONG_TEXT_SHINGLES,
  NEAR_ARGS_SIMILARITY,
  NEAR_SIMILARITY,
  NEAR_SIMILARITY_SHORT,
} from '../fingerprint/sketch.js';
import { rewordedWords } from '../fingerprint/words.js';
import * as slot from './slot.js';

/**
 * How two slots of the ring compare beyond equal hashes: near results and
 * near arguments by their sketch bins, a text grown out of another, an
 * answer restated, a call resent in other words. Each takes the ring's
 * words and two slot offsets, and reads nothing else.
 */

// Module-local copies of the slot layout: see slot.ts on why.
const {
  ARGS_SKETCH_WORDS,
  F_ARGS_SKETCH,
  F_ARGS_WORDS,
  F_DIGIT_SHAPE,
  F_KIND,
  F_NORM_HI,
  F_NORM_LO,
  F_RES_HI,
  F_RES_LO,
  F_RESULT_SKETCH,
  F_TOOL_FLAGS,
  FLAG_INFORMATIVE,
  KIND_ARGS_NEAR,
  KIND_ARGS_WORDS,
  KIND_LISTED_ITEM,
  KIND_RESULT_NEAR,
  KIND_SHINGLES_SHIFT,
  OUTCOME_CODES,
  RESULT_SKETCH_WORDS,
} = slot;

/** Equal bins out of 64 (result) and 32 (arguments) from which two long values are the same. */
export const RESULT_NEAR_BINS = binsForSimilarity(NEAR_SIMILARITY, (RESULT_SKETCH_WORDS - 1) * 8);
export const RESULT_NEAR_BINS_SHORT = binsForSimilarity(NEAR_SIMILARITY_SHORT, (RESULT_SKETCH_WORDS - 1) * 8);
/** The looser bar a reading must still meet against an answer's first reading: noise stays there, progress drifts away. */
export const RESULT_DRIFT_BINS = binsForSimilarity(DRIFT_SIMILARITY, (RESULT_SKETCH_WORDS - 1) * 8);
/** A bigger text sharing at least this share of the ratio of sizes with a smaller one contains it (sketch noise allowed for). */
const CONTAINED = 0.9;
/** Bigrams a text must gain to have grown: a line, not an OCR pass that read a few more words. */
const MIN_GROWTH = 4;
/** Estimated similarity from equal bins out of 64 (see sketchSimilarity). */
function similarityOf(equal: number): number {
  return (equal / 64 - 1 / 16) / (15 / 16);
}
const ARGS_NEAR_BINS = binsForSimilarity(NEAR_ARGS_SIMILARITY, (ARGS_SKETCH_WORDS - 1) * 8);
/** Equal bins from which an exchange is said again (see exchangeAlike): out of 32 for the arguments, 64 for the result. */
const EXCHANGE_ARGS_BINS = binsForSimilarity(EXCHANGE_SIMILARITY, (ARGS_SKETCH_WORDS - 1) * 8);
const EXCHANGE_RESULT_BINS = binsForSimilarity(EXCHANGE_SIMILARITY, (RESULT_SKETCH_WORDS - 1) * 8);

/** Equal bins of the result sketches at two offsets, or -1 when their skeletons differ. */
export function equalResultBins(b: Uint32Array, x: number, y: number): number {
  if (b[x + F_RESULT_SKETCH] !== b[y + F_RESULT_SKETCH]) return -1;
  let equal = 0;
  for (let w = 1; w < RESULT_SKETCH_WORDS; w++) equal += equalBins(b[x + F_RESULT_SKETCH + w]!, b[y + F_RESULT_SKETCH + w]!);
  return equal;
}

/** The result's bigram count at offset `o`. */
export function shinglesAt(b: Uint32Array, o: number): number {
  return (b[o + F_KIND]! >>> KIND_SHINGLES_SHIFT) & 255;
}

/**
 * Is the free text at `y` the one at `x` with more appended (a log read
 * again after new lines)? Then `y` has more bigrams and holds nearly all of
 * `x`'s: their similarity is close to the ratio of their sizes. A page read
 * twice keeps its size and shares less.
 */
export function grewFrom(b: Uint32Array, x: number, y: number, equal: number): boolean {
  const before = shinglesAt(b, x);
  const after = shinglesAt(b, y);
  return after >= before + MIN_GROWTH && similarityOf(equal) >= CONTAINED * (before / after);
}

/**
 * Is the long text at `x` the one at `y` reworded: the same call's answer
 * restated, still within drift of it (the looser bar noise meets against
 * an answer's first reading), and not grown out of it? For the cycle
 * counters only: the same question asked verbatim between the same other
 * steps, answered in other words, went round. Answer numbers keep the
 * near bar, so a page or a verdict restated is not the same answer to
 * every detector.
 */
export function rewordedAnswer(b: Uint32Array, x: number, y: number): boolean {
  if ((b[x + F_KIND]! & b[y + F_KIND]! & KIND_RESULT_NEAR) === 0 || Math.min(shinglesAt(b, x), shinglesAt(b, y)) < LONG_TEXT_SHINGLES) return false;
  const equal = equalResultBins(b, y, x);
  return equal >= RESULT_DRIFT_BINS && !grewFrom(b, y, x, equal);
}

/** The same normalised arguments, or two long ones near enough by their sketch (a cell cut off at another point). */
export function argsAlike(b: Uint32Array, x: number, y: number): boolean {
  if (b[x + F_NORM_HI] === b[y + F_NORM_HI] && b[x + F_NORM_LO] === b[y + F_NORM_LO]) return true;
  return equalArgsBins(b, x, y) >= ARGS_NEAR_BINS;
}

/** Equal bins (out of 32) of the argument sketches at two offsets, or -1 when either has no free text or their skeletons differ. */
function equalArgsBins(b: Uint32Array, x: number, y: number): number {
  if ((b[x + F_KIND]! & b[y + F_KIND]! & KIND_ARGS_NEAR) === 0 || b[x + F_ARGS_SKETCH] !== b[y + F_ARGS_SKETCH]) return -1;
  let equal = 0;
  for (let w = 1; w < ARGS_SKETCH_WORDS; w++) equal += equalBins(b[x + F_ARGS_SKETCH + w]!, b[y + F_ARGS_SKETCH + w]!);
  return equal;
}

/**
 * Are the calls at `x` and `y` one exchange said again: the same tool, free
 * text in both arguments (a message) and both results long enough to
 * compare (the reply), each side at J ≥ EXCHANGE_SIMILARITY from the other?
 * Looser than "near" on purpose: a message reworded, or a reply reworded,
 * is weak evidence alone, the two together are not.
 */
export function exchangeAlike(b: Uint32Array, x: number, y: number): boolean {
  if (b[x + F_TOOL_FLAGS]! >>> 8 !== b[y + F_TOOL_FLAGS]! >>> 8 || equalArgsBins(b, x, y) < EXCHANGE_ARGS_BINS) return false;
  return (b[x + F_KIND]! & b[y + F_KIND]! & KIND_RESULT_NEAR) !== 0 && equalResultBins(b, x, y) >= EXCHANGE_RESULT_BINS;
}

/**
 * Is the call at `x` the one at `y` sent again in other words, for the
 * period counters? Its arguments are near (long ones by their sketch, short
 * ones reworded by their word signatures: a flag respelled or added, words
 * reordered), and it got the very same result, one that says
 * something (not a bare acknowledgement, not "nothing found"). Near results
 * are not enough: a fan-out of near questions gets near answers. Arguments
 * that differ only in their digits (page=1, page=2) are a sweep, each call a
 * new one; so is a call that takes the next item of a listing (takesListedItem).
 */
export function resentReworded(b: Uint32Array, x: number, y: number): boolean {
  const flags = b[x + F_TOOL_FLAGS]!;
  if ((flags & FLAG_INFORMATIVE) === 0 || (flags & 3) === OUTCOME_CODES.empty || (b[x + F_KIND]! & KIND_LISTED_ITEM) !== 0) return false;
  if (b[x + F_RES_HI] !== b[y + F_RES_HI] || b[x + F_RES_LO] !== b[y + F_RES_LO]) return false;
  // Words that name something (numbers among them) are kept apart by the signature itself: another page, another id.
  if ((b[x + F_KIND]! & b[y + F_KIND]! & KIND_ARGS_WORDS) !== 0) return rewordedWords(b, x + F_ARGS_WORDS, y + F_ARGS_WORDS);
  const digitShape = b[x + F_DIGIT_SHAPE]!;
  return digitShape !== 0 && b[y + F_DIGIT_SHAPE] !== 0 && b[y + F_DIGIT_SHAPE] !== digitShape && argsAlike(b, x, y);
}
