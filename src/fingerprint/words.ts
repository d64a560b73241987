/**
 * Word signatures of short arguments (DESIGN §2: the same question reworded
 * is a near-same call). "Pontotoc County CBS station" and "… CBS affiliate",
 * or `LogNorm` asked through three search tools, share most of their words;
 * checking each of several files, repos or ids shares the question but swaps
 * the thing it names. A signature keeps both as bit sets of hashed tokens:
 * the **words** of the argument values (64 bits, one per word) and the
 * **names** among them (64 bits, four per name: one-word values, titles,
 * numbers, and identifier-like pieces of free text). Written as
 * `loopguard.args.words`; docs/fingerprints.md ("Word signatures") specifies
 * it for other languages, and the reference vectors in the tests pin it.
 */
import { fmix32 } from './sketch.js';

/** Canonical argument texts longer than this get no signature: a question is short, long text is the sketch's to compare. */
export const WORDS_MAX_CHARS = 1024;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** The sets being built, as 32-bit halves (reused: signatures are computed synchronously, one at a time). */
const sets = new Uint32Array(4);
const WORDS_HI = 0;
const WORDS_LO = 1;
const NAMES_HI = 2;
const NAMES_LO = 3;
/** The signature's length in 32-bit words (and in hex digits, eight per word). */
export const SIGNATURE_WORDS = 4;

function isLetterOrDigit(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c >= 128;
}
function isUpper(c: number): boolean {
  return c >= 65 && c <= 90;
}
function isLower(c: number): boolean {
  return c >= 97 && c <= 122;
}
function lowered(c: number): number {
  return isUpper(c) ? c + 32 : c;
}

function setBit(hiWord: number, bit: number): void {
  if (bit >= 32) sets[hiWord]! |= 1 << (bit - 32);
  else sets[hiWord + 1]! |= 1 << bit;
}
function addWord(h: number): void {
  setBit(WORDS_HI, fmix32(h) >>> 26);
}
/**
 * Four bits per name (a Bloom filter): with the half-dozen names of a call
 * set, another name hides among them about one time in a hundred.
 */
function addName(h: number): void {
  const m = fmix32(h);
  for (let shift = 26; shift >= 8; shift -= 6) setBit(NAMES_HI, (m >>> shift) & 63);
}

/**
 * The signature of a canonical JSON text of arguments, as 32 hex digits (the
 * 64 word bits, then the 64 name bits, each high half first), or undefined when
 * the text is longer than WORDS_MAX_CHARS or holds no word. Keys are not
 * read; `null` is nothing. Never throws.
 */
export function wordSignature(text: string): string | undefined {
  if (text.length > WORDS_MAX_CHARS) return undefined;
  sets.fill(0);
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      const close = stringEnd(text, i + 1);
      // A string followed by a colon is a key: it says what the value is, not what is asked.
      if (text.charCodeAt(close + 1) !== 58) stringValue(text, i + 1, close);
      i = close + 1;
    } else if (isLetterOrDigit(c) || c === 45) {
      // A number or a literal: one name (`null` says nothing).
      let end = i + 1;
      while (end < text.length && isLiteralChar(text.charCodeAt(end))) end++;
      if (!(end - i === 4 && text.startsWith('null', i))) addName(tokenHash(text, i, end));
      i = end;
    } else {
      i++;
    }
  }
  if ((sets[WORDS_HI]! | sets[WORDS_LO]!) === 0) return undefined;
  return hex8(sets[WORDS_HI]!) + hex8(sets[WORDS_LO]!) + hex8(sets[NAMES_HI]!) + hex8(sets[NAMES_LO]!);
}

function isLiteralChar(c: number): boolean {
  return isLetterOrDigit(c) || c === 43 || c === 45 || c === 46;
}

/** Index of the quote closing the string whose content starts at `from` (or the text's length). */
function stringEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 34) return i;
  }
  return text.length;
}

/** Code units a backslash escape at `i` takes (`\uXXXX`: six, others two). */
function escapeLength(text: string, i: number): number {
  return text.charCodeAt(i + 1) === 117 ? 6 : 2;
}

/**
 * One string value, content text[from, to) as written (escapes included).
 * Its words all go in; which pieces are names depends on whether it is one
 * piece (a name, whole) or free text of several (the identifier-like ones).
 */
function stringValue(text: string, from: number, to: number): void {
  let pieces = 0;
  let titled = true;
  let firstFrom = 0;
  let firstTo = 0;
  let i = from;
  while (i < to) {
    // Pieces are separated by spaces and escapes (`\n`, `\t`, `\"`…).
    const c = text.charCodeAt(i);
    if (c === 32) {
      i++;
      continue;
    }
    if (c === 92) {
      i += escapeLength(text, i);
      continue;
    }
    let end = i + 1;
    while (end < to) {
      const d = text.charCodeAt(end);
      if (d === 32 || d === 92) break;
      end++;
    }
    words(text, i, end);
    pieces++;
    titled &&= startsCapitalised(text, i, end);
    if (pieces === 1) {
      firstFrom = i;
      firstTo = end;
    } else {
      if (pieces === 2) pieceName(text, firstFrom, firstTo, true);
      pieceName(text, i, end, true);
    }
    i = end;
  }
  // One piece, or a title of several (every piece capitalised: "Intro Biology Honors Section"), names one thing as a whole.
  if (pieces === 1) pieceName(text, firstFrom, firstTo, false);
  else if (pieces > 1 && titled) pieceName(text, from, to, false);
}

/**
 * A piece as a name: trimmed of anything but letters and digits at both
 * ends, lower-cased. In free text (`onlyIdentifiers`) only pieces with a
 * digit, `_`, `.`, `/` or a lower-case letter followed by a capital are names
 * (`PaymentRetryPolicy`, `app/routes/x.py`, `14`); plain words are words.
 */
function pieceName(text: string, from: number, to: number, onlyIdentifiers: boolean): void {
  while (from < to && !isLetterOrDigit(text.charCodeAt(from))) from++;
  while (to > from && !isLetterOrDigit(text.charCodeAt(to - 1))) to--;
  if (from === to) return;
  if (onlyIdentifiers && !identifierLike(text, from, to)) return;
  addName(tokenHash(text, from, to));
}

/** Is the piece's first letter or digit (after quotes, brackets) a capital, a digit or non-ASCII? */
function startsCapitalised(text: string, from: number, to: number): boolean {
  while (from < to && !isLetterOrDigit(text.charCodeAt(from))) from++;
  if (from === to) return true;
  const c = text.charCodeAt(from);
  return isUpper(c) || (c >= 48 && c <= 57) || c >= 128;
}

function identifierLike(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 48 && c <= 57) || c === 95 || c === 46 || c === 47) return true;
    if (isLower(c) && i + 1 < to && isUpper(text.charCodeAt(i + 1))) return true;
  }
  return false;
}

/** The words of text[from, to): runs of letters and digits, split where a lower-case letter meets a capital (`LogNorm`: log, norm). */
function words(text: string, from: number, to: number): void {
  let h = FNV_OFFSET;
  let inWord = false;
  let previous = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (!isLetterOrDigit(c)) {
      if (inWord) addWord(h);
      inWord = false;
      h = FNV_OFFSET;
      continue;
    }
    if (inWord && isUpper(c) && isLower(previous)) {
      addWord(h);
      h = FNV_OFFSET;
    }
    h = Math.imul(h ^ lowered(c), FNV_PRIME);
    inWord = true;
    previous = c;
  }
  if (inWord) addWord(h);
}

/** 32-bit FNV-1a over the lower-cased code units of text[from, to). */
function tokenHash(text: string, from: number, to: number): number {
  let h = FNV_OFFSET;
  for (let i = from; i < to; i++) h = Math.imul(h ^ lowered(text.charCodeAt(i)), FNV_PRIME);
  return h;
}

function hex8(v: number): string {
  return (v >>> 0).toString(16).padStart(8, '0');
}

/** Set bits of a 32-bit word. */
export function bitCount(v: number): number {
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

/**
 * Do two signatures (as SIGNATURE_WORDS 32-bit words each, at `a` and `b` in
 * `w`) ask the same thing, reworded? They share at least half of all their
 * words, and neither swaps a name of the other for one of its own: adding or
 * dropping a name (a method asked within the class, a zip code) rewords the
 * question; replacing one (another file, another id, another day) asks
 * about another thing.
 */
export function rewordedWords(w: Uint32Array, a: number, b: number): boolean {
  const shared = bitCount(w[a]! & w[b]!) + bitCount(w[a + 1]! & w[b + 1]!);
  const all = bitCount(w[a]! | w[b]!) + bitCount(w[a + 1]! | w[b + 1]!);
  if (all === 0 || 2 * shared < all) return false;
  const onlyA = (w[a + 2]! & ~w[b + 2]!) | (w[a + 3]! & ~w[b + 3]!);
  const onlyB = (w[b + 2]! & ~w[a + 2]!) | (w[b + 3]! & ~w[a + 3]!);
  return onlyA === 0 || onlyB === 0;
}

/** A signature's hex as SIGNATURE_WORDS 32-bit words into `out` at `at`. */
export function signatureWords(signature: string, out: Uint32Array, at: number): void {
  for (let w = 0; w < SIGNATURE_WORDS; w++) {
    let v = 0;
    for (let k = 0; k < 8; k++) {
      const c = signature.charCodeAt(w * 8 + k);
      v = (v << 4) | ((c >= 97 ? c - 87 : c >= 65 ? c - 55 : c - 48) & 15);
    }
    out[at + w] = v >>> 0;
  }
}
