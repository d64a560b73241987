import { VOLATILE_MARKER } from './volatile.js';

/**
 * What a short result says of its call: `states` when it states something
 * the call did not say, `echoes` when it only repeats the call, undefined
 * otherwise. A receipt repeats its call ("Scrolled down one page." for
 * `scroll {"direction":"down","amount":"page"}`, "Entry updated." for
 * `cms_update_field {"entry_id":…}`) or gives bare values
 * (`{"status":"confirmed"}`, `{"rowCount":50000}`); a state reports in
 * words what the call could not know (a hit list, "Nothing happens.", a
 * file's lines).
 *
 * The value words are the words (runs of letters and digits, case folded,
 * camelCase split) of string values, and each number, `true`, `false` and
 * `null`; member names and masked values (fresh ids, times) are none. The
 * call's words are the tool name's and the arguments' (member names too),
 * and the words a call word of {@link MIN_STEM_CHARS} or more characters
 * starts (`scroll` → `scrolled`, `update` → `updated`). News are the words of
 * string values of two or more tokens (a one-token value, `confirmed`,
 * `2.8.1`, a path, is an enum, a status or a name) that are not the call's.
 * `states`: more than half of the value words are news. `echoes`: every
 * value word is a call's word in a value of two or more tokens.
 *
 * `resultText` is the masked canonical result text, `argsText` the
 * canonical argument text; a result longer than {@link RECEIPT_MAX_CHARS} is
 * not read (its length decides), nor arguments past {@link ARGS_READ_CHARS}.
 * One pass over the result; the arguments are read only when the result
 * could be either. Never throws.
 */
export function readReceipt(resultText: string, tool: string, argsText: string): ReceiptReading {
  if (resultText.length > RECEIPT_MAX_CHARS) return undefined;
  try {
    const candidates: string[] = [];
    const words = valueWords(resultText, candidates);
    // Most results end here: too few candidates to be news, and bare values besides, whatever the call said.
    if (candidates.length === 0 || (candidates.length * 2 <= words && candidates.length < words)) return undefined;
    const asked: string[] = [];
    scanWords(tool, 0, tool.length, asked);
    scanWords(argsText, 0, Math.min(argsText.length, ARGS_READ_CHARS), asked);
    let news = 0;
    for (const word of candidates) if (!asked.some((w) => w === word || (w.length >= MIN_STEM_CHARS && word.startsWith(w)))) news++;
    if (news * 2 > words) return 'states';
    return news === 0 && candidates.length === words ? 'echoes' : undefined;
  } catch {
    return undefined;
  }
}

export type ReceiptReading = 'states' | 'echoes' | undefined;

/**
 * Is a result (masked canonical text) a verbatim piece of the call's
 * argument text, cut at word boundaries (`echo 'Done again.'` answered
 * `Done again.`)? Such an answer hands the call's own text back; an
 * acknowledgement in the call's words ("Entry updated." to
 * `cms_update_field`) is no piece of it. Never throws.
 */
export function quotesArgs(resultText: string, argsText: string): boolean {
  const quoted = resultText.length > 1 && resultText.startsWith('"') && resultText.endsWith('"');
  const said = (quoted ? resultText.slice(1, -1) : resultText).trim();
  if (said.length === 0) return false;
  for (let at = argsText.indexOf(said); at !== -1; at = argsText.indexOf(said, at + 1)) {
    const end = at + said.length;
    if ((at === 0 || !isWordChar(argsText, at - 1)) && (end === argsText.length || !isWordChar(argsText, end))) return true;
  }
  return false;
}

/** Results read for what they state at most this long: a status line or a short record, not a page. */
export const RECEIPT_MAX_CHARS = 256;
/** Arguments read for the call's own words at most this long. */
export const ARGS_READ_CHARS = 2_048;
/** A call word this long or longer also covers the words it starts (`type` → `typed`); a shorter one would cover unrelated words. */
export const MIN_STEM_CHARS = 4;

const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;
/** `\uXXXX`: an escape six characters long. */
const LETTER_U = 117;
const MASKED = VOLATILE_MARKER;

/**
 * Counts the value words of canonical JSON text (see statesMoreThanCall) and
 * pushes, case folded, those of string values of two or more tokens to `out`.
 */
function valueWords(text: string, out: string[]): number {
  let words = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let end = i + 1;
      while (end < text.length && text.charCodeAt(end) !== QUOTE) end += text.charCodeAt(end) === BACKSLASH ? 2 : 1;
      const start = i + 1;
      i = end + 1;
      // A member name is the tool's vocabulary, a masked value a fresh id: neither is a value word.
      if (text.charCodeAt(i) === COLON || (end - start === MASKED.length && text.startsWith(MASKED, start))) continue;
      words += scanWords(text, start, end, spaced(text, start, end) ? out : undefined);
    } else if (isWordChar(text, i)) {
      words++;
      while (i < text.length && isWordChar(text, i)) i++;
    } else i++;
  }
  return words;
}

/** Does text[start, end) hold two tokens or more (an escape, `\n`, separates like a space)? */
function spaced(text: string, start: number, end: number): boolean {
  let token = false;
  let gap = false;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === BACKSLASH) {
      gap = token;
      if (c === BACKSLASH) i += text.charCodeAt(i + 1) === LETTER_U ? 5 : 1;
    } else if (gap) return true;
    else token = true;
  }
  return false;
}

/**
 * Counts the words (runs of letters and digits; a lower-case letter followed
 * by a capital starts a new one) of text[start, end), JSON escapes
 * separating, and pushes them case folded to `out` when given.
 */
function scanWords(text: string, start: number, end: number, out: string[] | undefined): number {
  let words = 0;
  let i = start;
  while (i < end) {
    if (text.charCodeAt(i) === BACKSLASH) {
      i += text.charCodeAt(i + 1) === LETTER_U ? 6 : 2;
      continue;
    }
    if (!isWordChar(text, i)) {
      i++;
      continue;
    }
    const from = i;
    i++;
    while (i < end && isWordChar(text, i) && !(isLower(text, i - 1) && isUpper(text, i))) i++;
    words++;
    out?.push(text.slice(from, i).toLowerCase());
  }
  return words;
}

const NON_ASCII_WORD_CHAR = /[\p{L}\p{N}]/u;
const NON_ASCII_LOWER = /\p{Ll}/u;
const NON_ASCII_UPPER = /\p{Lu}/u;

function isWordChar(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c < 128) return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  return NON_ASCII_WORD_CHAR.test(text[i]!);
}

function isLower(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return c < 128 ? c >= 97 && c <= 122 : NON_ASCII_LOWER.test(text[i]!);
}

function isUpper(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return c < 128 ? c >= 65 && c <= 90 : NON_ASCII_UPPER.test(text[i]!);
}
