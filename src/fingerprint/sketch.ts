/**
 * Similarity sketches (DESIGN §2: sameness is similarity, not byte equality).
 * Real observations are noisy — OCR of an unchanged page worded differently,
 * "visited 9 seconds ago", a stray newline in the same traceback — so two
 * values whose exact hashes differ may still say the same thing. A sketch is
 * a one-permutation MinHash over the word bigrams of a value's canonical
 * text: 64 bins of 4 bits, comparable in a few word operations, written as
 * `loopguard.args.sketch` / `loopguard.result.sketch`. docs/fingerprints.md
 * ("Similarity sketches") specifies it for other languages; the reference
 * vectors in the tests pin it.
 */

export const SKETCH_BINS = 64;
/** Text past this many UTF-16 code units is not read: a sketch is bounded in time whatever the value's size. */
export const SKETCH_MAX_CHARS = 65_536;
/**
 * Values with fewer bigrams of free text than this are compared exactly: in a
 * short, structured value (`running 40%` → `80%`) one changed field is
 * progress.
 */
export const MIN_NEAR_SHINGLES = 16;
/**
 * Estimated Jaccard similarity of the bigram sets at or above which two
 * texts of LONG_TEXT_SHINGLES bigrams or more say the same thing (the same
 * page OCR'd twice measures 0.45–0.9 on the real corpora, two pages of one
 * site 0.1–0.3); shorter texts need NEAR_SIMILARITY_SHORT, since a shared
 * header (a file name, a page title) is most of them.
 */
export const NEAR_SIMILARITY = 0.45;
export const NEAR_SIMILARITY_SHORT = 0.65;
export const LONG_TEXT_SHINGLES = 64;
/**
 * The looser bar a reading must still meet against the first reading of the
 * same answer: noise stays near the first reading, progress (a growing log, a
 * moving table) drifts away from it however small each step.
 */
export const DRIFT_SIMILARITY = 0.25;
/** The bar for arguments, compared on 32 bins: a long argument cut off at another point, not another long argument. */
export const NEAR_ARGS_SIMILARITY = 0.7;
/**
 * The looser bar at which a message and its answer, both at once, are the
 * earlier exchange said again in other words (RunHistory.exchangeAlike):
 * half their bigrams shared on each side.
 */
export const EXCHANGE_SIMILARITY = 0.5;

export const FNV_OFFSET = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;
const GOLDEN = 0x9e3779b1;
const BIN_SHIFT = 26;
const VALUE_MASK = (1 << BIN_SHIFT) - 1;
const EMPTY = 0xffffffff;

/** murmur3's finaliser: spreads every input bit over the word. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** 32-bit FNV-1a over the text's UTF-16 units. */
export function fnv1a(text: string): number {
  let h = FNV_OFFSET;
  const n = text.length;
  let i = 0;
  // Two units a turn: half the loop overhead on the item-set hash of every listing result (same value).
  for (; i + 1 < n; i += 2) h = Math.imul(Math.imul(h ^ text.charCodeAt(i), FNV_PRIME) ^ text.charCodeAt(i + 1), FNV_PRIME);
  if (i < n) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return h >>> 0;
}

/** Reused across calls: sketches are computed synchronously, one at a time. */
const mins = new Uint32Array(SKETCH_BINS);

/** A character of a token (UTF-16 unit): an ASCII letter or digit, or any non-ASCII unit. */
export function isTokenChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c >= 128;
}

/**
 * The sketch of a canonical JSON text, as hex: the number of bigrams (2
 * digits, capped at 255), the skeleton hash (8 digits), then one digit per
 * bin. Only free text is compared by similarity: string values of at least
 * LONG_TEXT_CHARS feed the bigrams, everything else — keys, numbers, short
 * strings such as a status or an id, and the structure — feeds the
 * skeleton, which must match exactly. Tokens are maximal runs of ASCII
 * letters and digits and non-ASCII characters, ASCII letters lower-cased; a
 * JSON escape (`\n`, `\"`, `\u00e9`…) separates tokens. A text with no
 * free-text string has no sketch (undefined). `tail`, a failure's last line
 * (fingerprint/index.ts failureTail), goes into the skeleton after a line
 * break: failures that end otherwise are never near. Never throws.
 */
export function textSketch(text: string, tail?: string): string | undefined {
  const end = text.length < SKETCH_MAX_CHARS ? text.length : SKETCH_MAX_CHARS;
  // Most values have no free text at all: their exact hash says everything, and they get no sketch.
  if (!hasFreeText(text, end)) return undefined;
  mins.fill(EMPTY);
  const t: Tokens = tokens;
  t.shingles = 0;
  t.count = 0;
  let skeleton = FNV_OFFSET;
  let i = 0;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c !== 34) {
      skeleton = Math.imul(skeleton ^ c, FNV_PRIME);
      i++;
      continue;
    }
    const close = stringEnd(text, i + 1, end);
    if (close - i - 1 >= LONG_TEXT_CHARS) {
      tokenize(text, i + 1, close, t);
      // One mark stands for the free text, so "same skeleton" still means "same structure".
      skeleton = Math.imul(skeleton ^ 1, FNV_PRIME);
    } else {
      const last = close < end ? close : end - 1;
      for (let k = i; k <= last; k++) skeleton = Math.imul(skeleton ^ text.charCodeAt(k), FNV_PRIME);
    }
    i = close + 1;
  }
  if (t.count === 1) {
    add(fmix32(t.previous));
    t.shingles = 1;
  }
  if (tail !== undefined) {
    skeleton = Math.imul(skeleton ^ 10, FNV_PRIME);
    for (let k = 0; k < tail.length; k++) skeleton = Math.imul(skeleton ^ tail.charCodeAt(k), FNV_PRIME);
  }
  return encode(t.shingles, skeleton >>> 0);
}

/** String values of at least this many characters (as written in the canonical text) are free text. */
export const LONG_TEXT_CHARS = 80;

interface Tokens {
  shingles: number;
  count: number;
  previous: number;
}
const tokens: Tokens = { shingles: 0, count: 0, previous: 0 };

/** Index of the quote that closes the string whose content starts at `from` (or `end`): native searches, no loop per character. */
function stringEnd(text: string, from: number, end: number): number {
  for (let q = text.indexOf('"', from); q !== -1 && q < end; q = text.indexOf('"', q + 1)) {
    // A quote after an odd run of backslashes is escaped.
    let backslashes = 0;
    while (q - backslashes - 1 >= from && text.charCodeAt(q - backslashes - 1) === 92) backslashes++;
    if ((backslashes & 1) === 0) return q;
  }
  return end;
}

/** Does the text hold a string literal of LONG_TEXT_CHARS or more within its first `end` units? */
function hasFreeText(text: string, end: number): boolean {
  let open = text.indexOf('"');
  while (open !== -1 && open < end) {
    const close = stringEnd(text, open + 1, end);
    if (close - open - 1 >= LONG_TEXT_CHARS) return true;
    open = text.indexOf('"', close + 1);
  }
  return false;
}

/** Feeds the word bigrams of text[from, to) into the bins; the token stream runs on across strings. */
function tokenize(text: string, from: number, to: number, t: Tokens): void {
  let h = FNV_OFFSET;
  let inToken = false;
  for (let i = from; i <= to; i++) {
    let c = i < to ? text.charCodeAt(i) : 32;
    if (c === 92) {
      // A JSON escape: `\` and its letter, and the four hex digits of `\uXXXX`, stand between tokens.
      i += i + 1 < to && text.charCodeAt(i + 1) === 117 ? 5 : 1;
      c = 32;
    }
    if (isTokenChar(c)) {
      if (c >= 65 && c <= 90) c += 32;
      h = Math.imul(h ^ c, FNV_PRIME);
      inToken = true;
      continue;
    }
    if (!inToken) continue;
    const token = h >>> 0;
    if (t.count > 0) {
      add(fmix32((t.previous ^ Math.imul(token, GOLDEN)) >>> 0));
      t.shingles++;
    }
    t.previous = token;
    t.count++;
    h = FNV_OFFSET;
    inToken = false;
  }
}

function add(s: number): void {
  const bin = s >>> BIN_SHIFT;
  const v = s & VALUE_MASK;
  if (v < mins[bin]!) mins[bin] = v;
}

/** Where the bins start in a sketch's hex: after the bigram count and the skeleton hash. */
const BINS_AT = 10;
/** Char codes of the hex digits. */
const HEX_CODES = Uint8Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
/**
 * The sketch's characters are written here and read out as one flat string:
 * appending its 74 digits one by one made a rope that every later read of the
 * sketch had to flatten first. Reused, like `mins`.
 */
const sketchChars = Buffer.alloc(BINS_AT + SKETCH_BINS);

function encode(shingles: number, skeleton: number): string {
  const count = shingles > 255 ? 255 : shingles;
  const out = sketchChars;
  out[0] = HEX_CODES[count >>> 4]!;
  out[1] = HEX_CODES[count & 15]!;
  for (let k = 0; k < 8; k++) out[2 + k] = HEX_CODES[(skeleton >>> (28 - 4 * k)) & 15]!;
  if (shingles === 0) {
    out.fill(HEX_CODES[0]!, BINS_AT);
    return out.toString('latin1');
  }
  // An empty bin borrows the next filled bin's minimum (circularly): short texts leave most bins empty.
  let first = 0;
  while (mins[first] === EMPTY) first++;
  for (let k = SKETCH_BINS - 1, carry = mins[first]!; k >= 0; k--) {
    if (mins[k] === EMPTY) mins[k] = carry;
    else carry = mins[k]!;
  }
  for (let k = 0; k < SKETCH_BINS; k++) out[BINS_AT + k] = HEX_CODES[mins[k]! & 15]!;
  return out.toString('latin1');
}

/** Bigram count of a sketch (its first two hex digits). */
export function sketchShingles(sketch: string): number {
  const high = hexDigit(sketch.charCodeAt(0));
  const low = hexDigit(sketch.charCodeAt(1));
  // Two hex digits (every sketch made here) are read without the slice; anything else as parseInt reads it.
  if (high >= 0 && low >= 0) return high * 16 + low;
  const n = parseInt(sketch.slice(0, 2), 16);
  return Number.isNaN(n) ? 0 : n;
}

/** The value of a hex digit's char code, or -1. */
function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

/** Is a sketch of a value long enough to be compared by similarity? */
export function comparableByNearness(sketch: string): boolean {
  return sketchShingles(sketch) >= MIN_NEAR_SHINGLES;
}

/** Equal bins of two packed sketch words (8 bins each). */
export function equalBins(a: number, b: number): number {
  let x = (a ^ b) >>> 0;
  // One bit per bin that differs anywhere in its four bits.
  x |= x >>> 1;
  x |= x >>> 2;
  x &= 0x11111111;
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  const differing = (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
  return 8 - differing;
}

/**
 * Least number of equal bins (out of `bins`) that estimates a similarity of
 * at least `similarity`: a random pair of 4-bit bins matches one time in 16,
 * so `equal/bins = J + (1 − J)/16`.
 */
export function binsForSimilarity(similarity: number, bins: number): number {
  return Math.ceil((similarity + (1 - similarity) / 16) * bins);
}

/** Similarity of two sketches' bigram sets (estimated Jaccard, 0..1). */
export function sketchSimilarity(a: string, b: string): number {
  let equal = 0;
  if (a.slice(2, BINS_AT) !== b.slice(2, BINS_AT)) return 0;
  for (let k = BINS_AT; k < BINS_AT + SKETCH_BINS; k++) if (a.charCodeAt(k) === b.charCodeAt(k)) equal++;
  return Math.max(0, (equal / SKETCH_BINS - 1 / 16) / (15 / 16));
}


/**
 * A sketch packed into 32-bit words: the skeleton hash, then the bins 8 to a
 * word (bin 0 in the high nibble); `words` words in all are written.
 */
export function sketchWords(sketch: string, out: Uint32Array, at: number, words: number): void {
  for (let w = 0; w < words; w++) {
    let v = 0;
    for (let k = 0; k < 8; k++) {
      const c = sketch.charCodeAt(2 + w * 8 + k);
      v = (v << 4) | ((c >= 97 ? c - 87 : c >= 65 ? c - 55 : c - 48) & 15);
    }
    out[at + w] = v >>> 0;
  }
}
