import { FNV_OFFSET, FNV_PRIME, isTokenChar } from './fingerprint/sketch.js';

/**
 * A request left standing in a conversation, for `revisit` (its fourth
 * reading): the agent asks the person (or agent) behind a tool for
 * something, is given a value the run already had (the user giving the same
 * zip code or email again), and asks for the same thing again, the value
 * unread. Whole messages are no help here: the asks are worded anew each
 * time (0.07–0.38 alike by word bigrams), as alike as a refusal restated to
 * each new plea, which is ordinary. What a refusal never has is the answer
 * to it: here the reply carries a value, one the run was given before, and
 * the next message asks about the same thing (a term of four letters or
 * more shared with the message the value answered) without naming the value.
 *
 * Only conversation turns are read (conversationMessage: prose arguments, a
 * short text reply), and a message's terms only when its reply, or the
 * reply before it, gave an old value. The state is bounded whatever the
 * run says, and holds no text of the run's:
 * - the hashes of the last VALUES values (tokens with a digit, of
 *   MIN_TOKEN_CHARS or more) the run's turns carried, messages and replies;
 * - while the latest turn's reply gave an old value, the hashes of up to
 *   ASK_TERMS terms of its message and of up to GIVEN of those values;
 * - the number of asks restated since the conversation was last interrupted.
 */

/** Values remembered: a conversation's ids, codes and addresses. */
const VALUES = 32;
/** Values of one reply that are checked against the next message. */
const GIVEN = 4;
/** Terms of an ask kept for the next message to share one of. */
const ASK_TERMS = 48;
/** A message or reply longer than this is a document, not a turn. */
export const TURN_MAX_CHARS = 1_000;
/** Words a message needs to be prose, and the share of them that must be words of letters. */
const MIN_WORDS = 5;
const WORD_SHARE = 0.85;
/**
 * Shorter tokens say nothing: with a digit (`4g`, `B2`, `cabinet 1`) they
 * are too common to be a value someone was given, without one (`the`,
 * `zip`, `you`) they are not what is asked.
 */
const MIN_TOKEN_CHARS = 4;

/**
 * The hashes (FNV-1a) of a text's tokens of MIN_TOKEN_CHARS or more that
 * hold a digit (`digits`: values) or hold none (terms). Tokens are the
 * sketch's (isTokenChar: maximal runs of ASCII letters and digits and
 * non-ASCII characters), ASCII letters lower-cased. One pass over the characters: no token string is made.
 */
function tokenHashes(text: string, digits: boolean): number[] {
  const out: number[] = [];
  let h = FNV_OFFSET;
  let length = 0;
  let digit = false;
  for (let i = 0; i <= text.length; i++) {
    let c = i < text.length ? text.charCodeAt(i) : 32;
    if (isTokenChar(c)) {
      const isDigit = c >= 48 && c <= 57;
      if (c >= 65 && c <= 90) c += 32;
      h = Math.imul(h ^ c, FNV_PRIME);
      length++;
      digit ||= isDigit;
      continue;
    }
    if (length >= MIN_TOKEN_CHARS && digit === digits) out.push(h >>> 0);
    h = FNV_OFFSET;
    length = 0;
    digit = false;
  }
  return out;
}

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 160;
}

/** A letter of a word: ASCII, or any character from U+00C0 on (accented Latin, other scripts). */
function isLetter(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c >= 0xc0;
}

/** `"`, `'` or `(`. */
function isOpener(c: number): boolean {
  return c === 34 || c === 39 || c === 40;
}

/** `.`, `,`, `!`, `?`, `;`, `:`, `)`, `"` or `'`. */
function isCloser(c: number): boolean {
  return c === 46 || c === 44 || c === 33 || c === 63 || c === 59 || c === 58 || c === 41 || c === 34 || c === 39;
}

/**
 * Is text[from, to) a word of letters: maybe opened by quotes or a bracket,
 * then a letter, then letters, apostrophes and hyphens, maybe closed by
 * clause punctuation, quotes or a bracket?
 */
function isWord(text: string, from: number, to: number): boolean {
  let i = from;
  while (i < to && isOpener(text.charCodeAt(i))) i++;
  if (i === to || !isLetter(text.charCodeAt(i))) return false;
  for (i++; i < to; i++) {
    const c = text.charCodeAt(i);
    if (!isLetter(c) && c !== 39 && c !== 45) break;
  }
  while (i < to && isCloser(text.charCodeAt(i))) i++;
  return i === to;
}

/** Does the text end a sentence (`.`, `?`, `!`, `…`, or their full-width forms), maybe before closing quotes or a bracket? */
function endsSentence(text: string): boolean {
  let i = text.length - 1;
  while (i >= 0 && (isSpace(text.charCodeAt(i)) || text.charCodeAt(i) === 34 || text.charCodeAt(i) === 39 || text.charCodeAt(i) === 41)) i--;
  const c = text.charCodeAt(i);
  return c === 46 || c === 63 || c === 33 || c === 0x2026 || c === 0x3002 || c === 0xff1f || c === 0xff01;
}

/**
 * Is the text something said to a reader: sentences (it ends one), a few
 * words, nearly all of letters (not a command, a query or code)? The end is
 * read first: most strings that are no message fail there, before any scan.
 */
function isProse(text: string): boolean {
  const n = text.length;
  if (n > TURN_MAX_CHARS || !endsSentence(text)) return false;
  let words = 0;
  let prose = 0;
  for (let i = 0; i < n; ) {
    while (i < n && isSpace(text.charCodeAt(i))) i++;
    if (i === n) break;
    const start = i;
    while (i < n && !isSpace(text.charCodeAt(i))) i++;
    words++;
    if (isWord(text, start, i)) prose++;
  }
  return words >= MIN_WORDS && prose >= WORD_SHARE * words;
}

/**
 * The message a call says to someone, when it is a conversation turn: its
 * arguments are an object with a prose string (the longest, when there are
 * several), and its result is a short text that is not JSON (the reply).
 * Undefined for every other call.
 */
export function conversationMessage(args: unknown, result: unknown): string | undefined {
  if (typeof result !== 'string' || result.length > TURN_MAX_CHARS || typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  let at = 0;
  while (at < result.length && isSpace(result.charCodeAt(at))) at++;
  // A reply in JSON is a record, not something a person said.
  if (result.charCodeAt(at) === 123 || result.charCodeAt(at) === 91) return undefined;
  let message: string | undefined;
  const record = args as Record<string, unknown>;
  for (const key in record) {
    const v = record[key];
    if (typeof v === 'string' && (message === undefined || v.length > message.length) && isProse(v)) message = v;
  }
  return message;
}

/** Where each list starts in StandingAsk's one array (one array: each typed array costs its own headers). */
const ASKED_AT = VALUES;
const GIVEN_AT = VALUES + ASK_TERMS;

export class StandingAsk {
  /**
   * The values remembered (VALUES words), then, while the latest turn's reply
   * gave values the run already had, its message's terms (ASK_TERMS words)
   * and those values (GIVEN words).
   */
  private readonly words = new Uint32Array(VALUES + ASK_TERMS + GIVEN);
  private valueCount = 0;
  private nextValue = 0;
  private askedCount = 0;
  private givenCount = 0;
  /** Asks restated since the conversation was last interrupted. */
  private restated = 0;

  /** Is a turn's answer waiting to be read against the next message (an interruption would end it)? */
  get waiting(): boolean {
    return this.askedCount > 0 || this.restated > 0;
  }

  /**
   * A conversation turn: `message` said, `reply` got; `argsText`, the
   * call's canonical arguments, when the host has it. Returns how this
   * message stands: 0 when it restates no ask, 1 when it restates the ask
   * its previous turn's reply answered with an old value and is the first
   * to since the conversation was interrupted, 2 when it is a later one.
   */
  turn(message: string, reply: string, argsText: string | undefined): 0 | 1 | 2 {
    const said = tokenHashes(message, true);
    // The message's terms, read at most once: to match the ask before it, and to be the ask the next one matches.
    let terms: number[] | undefined;
    let restates: 0 | 1 | 2 = 0;
    if (this.askedCount > 0 && !this.givenIn(said) && this.sharesTerm((terms = tokenHashes(message, false)))) {
      restates = this.restated === 0 ? 1 : 2;
      this.restated++;
    }
    this.askedCount = 0;
    this.givenCount = 0;
    const got = tokenHashes(reply, true);
    let fresh = false;
    /** The call's own values, read once a reply holds an old value: a receipt naming the file written gives nothing. */
    let own: number[] | undefined;
    for (const h of got) {
      if (!this.has(h)) fresh = true;
      else if (this.givenCount < GIVEN && !(own ??= argsText === undefined ? said : tokenHashes(argsText, true)).includes(h)) this.words[GIVEN_AT + this.givenCount++] = h;
    }
    // Only an ask answered with an old value needs its terms: the next message is read against them.
    if (this.givenCount > 0) for (const h of terms ?? tokenHashes(message, false)) if (this.askedCount < ASK_TERMS) this.words[ASKED_AT + this.askedCount++] = h;
    // A reply with something new and nothing old moved the conversation on: the asks before it were answered.
    if (this.givenCount === 0 && fresh) this.restated = 0;
    for (const h of said) this.remember(h);
    for (const h of got) this.remember(h);
    return restates;
  }

  /** Something else happened: a call that is not a turn and not one made before with the same answer. */
  interrupt(): void {
    this.askedCount = 0;
    this.givenCount = 0;
    this.restated = 0;
  }

  /** Are any of these values (a message's) among those the reply before it gave: a confirmation, not the ask again? */
  private givenIn(values: readonly number[]): boolean {
    for (const h of values) for (let i = 0; i < this.givenCount; i++) if (this.words[GIVEN_AT + i] === h) return true;
    return false;
  }

  /** Does the message share a term with the ask answered before it? */
  private sharesTerm(terms: readonly number[]): boolean {
    for (const h of terms) for (let i = 0; i < this.askedCount; i++) if (this.words[ASKED_AT + i] === h) return true;
    return false;
  }

  private has(h: number): boolean {
    for (let i = 0; i < this.valueCount; i++) if (this.words[i] === h) return true;
    return false;
  }

  private remember(h: number): void {
    if (this.has(h)) return;
    this.words[this.nextValue] = h;
    this.nextValue = (this.nextValue + 1) % VALUES;
    if (this.valueCount < VALUES) this.valueCount++;
  }
}
