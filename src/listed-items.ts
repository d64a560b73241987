import { FNV_OFFSET, FNV_PRIME, fmix32 } from './fingerprint/sketch.js';

/**
 * Items the run was shown, for telling a sweep over a listing from a loop.
 *
 * A run that reads a list (volume ids, deposit references, the legal names
 * in a CSV) and then asks one tool about each item in turn gets the same
 * answer, the same emptiness or the same failure again and again with new
 * arguments: exactly what `same-answer`, `empty-streak` and `same-error`
 * count. What sets the sweep apart is where the new arguments come from:
 * each call swaps in an item that an earlier result listed, one the tool's
 * previous call did not name. A reworded question, a guessed id or a
 * re-spelt value takes words the run made up, not an item of a listing.
 *
 * The state is bounded whatever the run is given; it holds no reference to
 * a value of the run's (docs/collector.md, "Memory"):
 * - the latest LISTINGS results that said something new, each as its masked
 *   text (at most LISTING_MAX_CHARS; a longer result is a page of text, not
 *   a list: not kept) until a call first asks whether it lists an item, then
 *   as a Bloom filter of LISTING_BITS bits over its tokens and its pairs of
 *   adjacent tokens (one with more than LISTING_MAX_TERMS terms holds
 *   nothing). Reading the terms costs more than hashing the result, and most
 *   runs never ask, so it is put off until one does;
 * - the canonical text of the latest arguments of the last TOOLS tools,
 *   each at most ARGS_MAX_CHARS (longer arguments are not kept).
 */

/** Results kept as listings: the list a sweep works down, plus one answer of the sweep's own. */
const LISTINGS = 2;
/** Longer results are not kept: a page of text is no list. */
export const LISTING_MAX_CHARS = 4_096;
/** Bits of one listing's filter (a power of two). */
const LISTING_BITS = 4_096;
const LISTING_WORDS = LISTING_BITS / 32;
/** Bits a term sets in a filter. */
const TERM_BITS = 3;
/**
 * A listing with more terms is not kept: its filter would say "listed" to
 * too much (at this many, about 1.5% of the terms it never held).
 */
export const LISTING_MAX_TERMS = 384;
/** Tools whose latest arguments are kept. */
const TOOLS = 4;
/** Longer arguments are not kept: a sweep's call names its item in a few words, not a page. */
export const ARGS_MAX_CHARS = 256;
/** Shorter spans (a digit, `v2`) are too common to say where they came from. */
const MIN_ITEM_CHARS = 3;
/** Characters that belong to an item's token: a span is widened to whole tokens (`vol-0b7d…`, `fix/tax-rounding`). */
const TOKEN = /[A-Za-z0-9_\-./:]/;
/** What a span sheds at its ends: the quotes, brackets and key separators of the JSON around it. */
const FRAME = /^[\s"',:[\]{}()]+|[\s"',:[\]{}()]+$/g;

/**
 * Characters of a term, by char code: the token characters but the slash, so
 * the parts of a path are terms of their own (a branch `fix/tax-rounding`
 * is listed inside `origin/fix/tax-rounding`); 2 marks those a term sheds at
 * its ends (`vol-0b7d.` at the end of a sentence is `vol-0b7d`).
 */
const TERM_CHAR = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_') TERM_CHAR[c.charCodeAt(0)] = 1;
for (const c of '.:-') TERM_CHAR[c.charCodeAt(0)] = 2;
const BACKSLASH = 92;
const LETTER_U = 117;

export class ListedItems {
  /** The listings' filters (LISTINGS × LISTING_WORDS words); made when a call first needs them. */
  private words: Uint32Array | undefined;
  /** Each slot's listing text while its filter is not made yet. */
  private readonly texts: (string | undefined)[] = [];
  /** Listings kept (at most LISTINGS), and the slot the next one overwrites. */
  private listings = 0;
  private nextListing = 0;
  /** The last TOOLS tools with arguments kept, least recently called first, and their arguments' canonical text. */
  private readonly tools: string[] = [];
  private readonly argsTexts: string[] = [];

  /** Keeps a result's masked text that said something new, if it is short enough to be a listing. */
  noteListing(text: string): void {
    if (text.length > LISTING_MAX_CHARS) return;
    this.texts[this.nextListing] = text;
    this.nextListing = (this.nextListing + 1) % LISTINGS;
    if (this.listings < LISTINGS) this.listings++;
  }

  /** Makes a slot's filter from its text (a text too rich to be a list leaves the filter empty). */
  private makeFilter(words: Uint32Array, slot: number, text: string): void {
    const base = slot * LISTING_WORDS;
    words.fill(0, base, base + LISTING_WORDS);
    const count = termsOf(text);
    let terms = 0;
    for (let i = 0; i < count; i++) {
      if (addTerm(words, base, TERMS[i]!) && ++terms > LISTING_MAX_TERMS) {
        words.fill(0, base, base + LISTING_WORDS);
        return;
      }
    }
  }

  /**
   * The item this call takes from a listing, or undefined: the stretch of its
   * arguments' canonical text that differs from the tool's previous call
   * (widened to whole tokens), when a kept listing holds its tokens in that
   * order. Records the call's arguments either way.
   */
  itemTaken(tool: string, argsText: string | undefined): string | undefined {
    const before = this.argsOf(tool);
    this.noteArgs(tool, argsText);
    if (before === undefined || argsText === undefined || this.listings === 0 || argsText === before) return undefined;
    this.words ??= new Uint32Array(LISTINGS * LISTING_WORDS);
    const item = changedSpan(before, argsText);
    if (item.length < MIN_ITEM_CHARS || before.includes(item)) return undefined;
    return this.listed(item) ? item : undefined;
  }

  /** Records the call's arguments as its tool's latest (a call the detectors did not need to read). */
  noteArgs(tool: string, argsText: string | undefined): void {
    const at = this.tools.indexOf(tool);
    const kept = argsText !== undefined && argsText.length <= ARGS_MAX_CHARS;
    // The tool called last called again (most calls): it stays the most recent, no reordering.
    if (kept && at >= 0 && at === this.tools.length - 1) {
      this.argsTexts[at] = argsText;
      return;
    }
    if (at >= 0) {
      this.tools.splice(at, 1);
      this.argsTexts.splice(at, 1);
    }
    if (!kept) return;
    if (this.tools.length === TOOLS) {
      this.tools.shift();
      this.argsTexts.shift();
    }
    this.tools.push(tool);
    this.argsTexts.push(argsText);
  }

  /** The canonical text of the tool's latest arguments kept, if any. */
  argsOf(tool: string): string | undefined {
    const at = this.tools.indexOf(tool);
    return at < 0 ? undefined : this.argsTexts[at];
  }

  /** Does one kept listing hold every token of the item, and every pair of its adjacent tokens? */
  private listed(item: string): boolean {
    const words = this.words!;
    for (let slot = 0; slot < this.listings; slot++) {
      const text = this.texts[slot];
      if (text === undefined) continue;
      this.makeFilter(words, slot, text);
      this.texts[slot] = undefined;
    }
    const count = termsOf(item);
    if (count === 0) return false;
    for (let slot = 0; slot < this.listings; slot++) {
      const base = slot * LISTING_WORDS;
      let held = 0;
      while (held < count && hasTerm(words, base, TERMS[held]!)) held++;
      if (held === count) return true;
    }
    return false;
  }
}

/** What differs between two texts, between their common head and tail, widened to whole tokens and unframed. */
export function changedSpan(before: string, now: string): string {
  let head = 0;
  while (head < now.length && head < before.length && now[head] === before[head]) head++;
  let tail = 0;
  while (tail < now.length - head && tail < before.length - head && now[now.length - 1 - tail] === before[before.length - 1 - tail]) tail++;
  let start = head;
  while (start > 0 && TOKEN.test(now[start - 1]!)) start--;
  let end = now.length - tail;
  while (end < now.length && TOKEN.test(now[end]!)) end++;
  return now.slice(start, end).replace(FRAME, '');
}

/** The terms termsOf read last: a text of at most LISTING_MAX_CHARS characters has fewer than twice as many. */
const TERMS = new Uint32Array(2 * LISTING_MAX_CHARS);

/**
 * Writes the hash of each term of a text into TERMS, and returns how many:
 * each token (a run of TERM_CHAR characters, its end characters shed; JSON
 * escapes such as `\n` part no token), then the hash of it with the token
 * before it. Reads at most the first LISTING_MAX_CHARS characters.
 */
function termsOf(text: string): number {
  const length = Math.min(text.length, LISTING_MAX_CHARS);
  let count = 0;
  let previous = -1;
  /** FNV-1a of the token so far from its first kept character, and up to its last kept one (its end shed). */
  let hash = 0;
  let kept = 0;
  let inToken = false;
  for (let i = 0; i <= length; i++) {
    const c = i < length ? text.charCodeAt(i) : 0;
    const kind = c < 128 ? TERM_CHAR[c]! : 0;
    if (kind === 1) {
      if (!inToken) {
        inToken = true;
        hash = FNV_OFFSET;
      }
      hash = Math.imul(hash ^ c, FNV_PRIME);
      kept = hash;
    } else if (kind === 2) {
      // Shed at a token's start; inside one it stays only if a kept character follows.
      if (inToken) hash = Math.imul(hash ^ c, FNV_PRIME);
    } else {
      if (inToken) {
        const token = fmix32(kept);
        TERMS[count++] = token;
        if (previous >= 0) TERMS[count++] = fmix32(Math.imul(previous, FNV_PRIME) ^ token);
        previous = token;
        inToken = false;
      }
      // A JSON escape (`\n`, `\"`, `\u00e9`) separates tokens; its letters are none of theirs.
      if (c === BACKSLASH) i += text.charCodeAt(i + 1) === LETTER_U ? 5 : 1;
    }
  }
  return count;
}

/** Sets a term's bits in the filter at `base`; true when it set one that was clear (a term not held before, near enough). */
function addTerm(words: Uint32Array, base: number, term: number): boolean {
  let added = false;
  const step = (term >>> 16) | (term << 16) | 1;
  for (let k = 0, bit = term; k < TERM_BITS; k++, bit = (bit + step) | 0) {
    const at = base + ((bit & (LISTING_BITS - 1)) >>> 5);
    const mask = 1 << (bit & 31);
    if ((words[at]! & mask) === 0) {
      words[at] = words[at]! | mask;
      added = true;
    }
  }
  return added;
}

function hasTerm(words: Uint32Array, base: number, term: number): boolean {
  const step = (term >>> 16) | (term << 16) | 1;
  for (let k = 0, bit = term; k < TERM_BITS; k++, bit = (bit + step) | 0) {
    if ((words[base + ((bit & (LISTING_BITS - 1)) >>> 5)]! & (1 << (bit & 31))) === 0) return false;
  }
  return true;
}
