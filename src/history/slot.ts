import { SIGNATURE_WORDS } from '../fingerprint/words.js';
import type { Outcome } from '../types.js';

/**
 * The layout of one call's slot in RunHistory's ring: SLOT 32-bit words, at
 * fixed offsets, written once by `push` and read by every accessor.
 *
 *   word   field              holds
 *   0-1    F_ARGS_HI/LO       the arguments' hash (hash-words.ts)
 *   2-3    F_NORM_HI/LO       the normalised arguments' hash
 *   4-5    F_RES_HI/LO        the result's hash
 *   6      F_TOOL_FLAGS       tool id (bits 8-31) | FLAG_* (bits 0-7, outcome in 0-1)
 *   7      F_SHAPE            32 bits of the digit-masked arguments' hash, or 0
 *   8      F_KIND             KIND_* bits and small counts
 *   9-17   F_RESULT_SKETCH    the result's sketch: skeleton, then 64 bins of 4 bits
 *   18-22  F_ARGS_SKETCH      the arguments' skeleton, then 32 bins or (F_ARGS_WORDS) a word signature
 *   23     F_ANSWER           the answer number (answers.ts)
 *   24     F_PAGE             32 bits of the page view's hash, or 0
 *   25     F_DIGIT_SHAPE      32 bits of the digit-folded arguments' hash, or 0
 *   26     F_ITEMS            the order-free hash of the listed items, or 0
 *
 * F_KIND bits: 0 RESULT_NEAR, 1 ARGS_NEAR, 2 TRANSIENT, 3 DETERMINISTIC,
 * 4 ARGS_WORDS, 5 ACKNOWLEDGED_WORK, 6-7 the restated ask, 8-15 the result's bigram
 * count, 16-23 the re-ask distance, 24 LASTED_LONG, 25 WAITED, 26 RETURNED,
 * 27 LISTED_ITEM, 28 NAMES_SUBJECT, 29 ECHOED, 30 ECHOES_ARGS, 31 RESUBMITTED:
 * none free.
 * F_TOOL_FLAGS bits: 0-1 the outcome code, 2 BLOCKED, 3 INFORMATIVE,
 * 4 NAMES_ID, 5 SPACED, 6 ANSWERED_BEFORE, 7 ASKED_AGAIN, 8-31 the tool id:
 * none free.
 *
 * The modules that read slots copy these into module-local consts
 * (`const { F_KIND, … } = slot`): V8 reads an imported binding through its
 * module cell, with a hole check, at every use, and these are read at every
 * use on the hot path; a module-local const costs it nothing of the kind
 * (the detector bench ran about a tenth slower with plain imports).
 */

export const F_ARGS_HI = 0;
export const F_ARGS_LO = 1;
export const F_NORM_HI = 2;
export const F_NORM_LO = 3;
export const F_RES_HI = 4;
export const F_RES_LO = 5;
/** Tool id in the high 24 bits, flags (outcome, blocked, …) in the low 8: one word for both. */
export const F_TOOL_FLAGS = 6;
export const F_SHAPE = 7;
/** Near-sameness flags and the failure kind. */
export const F_KIND = 8;
/** The result's similarity sketch, 64 bins of 4 bits. */
export const F_RESULT_SKETCH = 9;
export const RESULT_SKETCH_WORDS = 9;
/**
 * The skeleton hash and first 32 bins of the arguments' sketch: enough to tell
 * a long argument cut off elsewhere from another one. Arguments too short to
 * compare by sketch keep their word signature (fingerprint/words.ts) where
 * the bins would be: a call has one or the other, never both.
 */
export const F_ARGS_SKETCH = F_RESULT_SKETCH + RESULT_SKETCH_WORDS;
export const ARGS_SKETCH_WORDS = 5;
export const F_ARGS_WORDS = F_ARGS_SKETCH + 1;
// The word signature must fit where the bins would be.
if (SIGNATURE_WORDS > ARGS_SKETCH_WORDS - 1) throw new Error('a word signature outgrows the sketch bins it shares');
/** Which answer this is: calls with the same answer (equal, or near an earlier one) share the number. */
export const F_ANSWER = F_ARGS_SKETCH + ARGS_SKETCH_WORDS;
/** Which page view the result shows (32 bits of its page-state hash, never 0), or 0 for a result that shows none. */
export const F_PAGE = F_ANSWER + 1;
/** 32 bits of the arguments' digit shape (HistoryEntry.digitShapeHash, never 0), or 0 when none was recorded. */
export const F_DIGIT_SHAPE = F_PAGE + 1;
/** The order-free hash of what the result lists (HistoryEntry.itemSetHash, never 0), or 0 when it lists nothing. */
export const F_ITEMS = F_DIGIT_SHAPE + 1;
export const SLOT = F_ITEMS + 1;

export const KIND_RESULT_NEAR = 1;
export const KIND_ARGS_NEAR = 2;
export const KIND_TRANSIENT = 4;
export const KIND_DETERMINISTIC = 8;
export const KIND_ARGS_WORDS = 16;
/** The call is what its acknowledgement is about (see HistoryEntry.acknowledgedWork). */
export const KIND_ACKNOWLEDGED_WORK = 32;
/** Bits 6-7: the call restated an ask (HistoryEntry.restatedAsk): 1 the first since the conversation was interrupted, 2 a later one. */
export const KIND_RESTATED_ASK_SHIFT = 6;
/** The result's bigram count (capped at 255) sits in bits 8-15. */
export const KIND_SHINGLES_SHIFT = 8;
/** Bits 16-23: how many steps back the nearest earlier call like this one got the same answer (0: none; windows hold at most 256 calls). */
export const KIND_REASKED_SHIFT = 16;
/** The call itself lasted SPACED_MS or more (a sleep, a long poll): bit 24. */
export const KIND_LASTED_LONG = 1 << 24;
/** The run waited before or during the call (see push): bit 25. */
export const KIND_WAITED = 1 << 25;
/** The call came back to a page view seen earlier in the window (see push): bit 26. */
export const KIND_RETURNED = 1 << 26;
/** The call took an item of a listing (HistoryEntry.takesListedItem): bit 27. */
export const KIND_LISTED_ITEM = 1 << 27;
/** The answer names what the arguments named (HistoryEntry.namesSubject): bit 28. */
export const KIND_NAMES_SUBJECT = 1 << 28;
/** A new call told what its tool had told another call (see echoedAnswer): bit 29. */
export const KIND_ECHOED = 1 << 29;
/** The answer is nothing but text its own arguments hold (see HistoryEntry.echoesArgs): bit 30. */
export const KIND_ECHOES_ARGS = 1 << 30;
/** A pending answer that repeats, apart from its fresh handle, the one the same call got just before (see resubmitted): bit 31. */
export const KIND_RESUBMITTED = (1 << 31) >>> 0;

export const OUTCOME_CODES: Record<Outcome, number> = { ok: 0, empty: 1, error: 2, pending: 3 };
export const OUTCOME_NAMES: readonly Outcome[] = ['ok', 'empty', 'error', 'pending'];
export const FLAG_BLOCKED = 4;
export const FLAG_INFORMATIVE = 8;
export const FLAG_NAMES_ID = 16;
export const FLAG_SPACED = 32;
/** The call's tool had given its answer before, earlier in the window, when it came. */
export const FLAG_ANSWERED_BEFORE = 64;
/** The call asked again for nothing (see noteAskedAgain). */
export const FLAG_ASKED_AGAIN = 128;
export const TOOL_AND_OUTCOME = 0xffffff03;
