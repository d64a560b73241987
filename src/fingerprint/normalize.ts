/**
 * Conservative normalisation of tool arguments for near-duplicate detection
 * (normArgsHash). It must merge what a model produces when it re-asks the same
 * thing (extra spaces, different case, a word repeated) and must never merge
 * calls that do different things, so every rule only touches plain words of
 * prose-like strings. docs/fingerprints.md lists the rules.
 */

/** Longer strings are left as they are: near-duplicate matching of whole documents is not worth their cost on the hot path. */
export const MAX_NORMALIZED_CHARS = 65_536;

/**
 * A date and time of day, nothing else: `2024-07-27 08:00`, `2024-07-27T08:00`,
 * `2024-07-27T08:00:00` are one instant, spelled the ways a model re-sends it
 * when the first spelling failed (DESIGN §2: the same value in other words).
 */
const DATE_TIME = /^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d)(?::(\d\d))?$/;
/** Shortest and longest strings DATE_TIME can match: a cheap test before the regular expression. */
const DATE_TIME_MIN = 16;
const DATE_TIME_MAX = 19;

/** A plain word: letters (any script) and combining marks, optionally joined by ' ’ or -, optionally ending in , ; ! ? */
const WORD = /^[\p{L}\p{M}]+(?:['’-][\p{L}\p{M}]+)*[,;!?]?$/u;
/** Characters of code, shell syntax and markup: strings holding any of them keep their words' case and repetitions. */
const CODE_CHARS = /[=(){}[\]<>;|&$`\\*]/;
const WHITESPACE_RUN = /\s+/;
/** Quick test for "nothing to do": no whitespace anomalies and no upper-case letter (ASCII or not). */
const MAYBE_CHANGES = /\s\s|[^\S ]|^\s|\s$|\p{Lu}|\p{Lt}/u;
/** Only whitespace, upper-case ASCII and non-ASCII can lead to a change; most argument strings (paths, URLs, ids) have none. */
const MAY_CHANGE = /[\sA-Z\u0080-\uffff]/;
/** Above this many tokens, repeated words are found with a Set instead of a scan. */
const SCAN_TOKENS = 16;

const CODE_CHAR_CODES = new Uint8Array(128);
for (const ch of '=(){}[]<>;|&$`\\*') CODE_CHAR_CODES[ch.charCodeAt(0)] = 1;

/**
 * Normalises one string:
 * 1. whitespace runs collapse to one space; leading/trailing whitespace goes;
 * 2. unless the string looks like code (any of = ( ) { } [ ] < > ; | & $ ` \ *),
 *    a run of `?`, `!`, `.` ending the last token goes when what precedes it
 *    is a plain word ("…my invoice?" = "…my invoice"), then plain words are
 *    lower-cased and a word already seen earlier in the string is dropped
 *    (first occurrences keep their order).
 * Tokens that are not plain words (paths, URLs, flags like -R, numbers,
 * identifiers with digits, quoted or punctuated tokens) are never changed.
 * 3. Then a string that is only a date and a time of day (DATE_TIME) is
 *    spelled `YYYY-MM-DDTHH:MM:SS`, seconds `00` when it gives none.
 * Strings longer than {@link MAX_NORMALIZED_CHARS} are returned unchanged.
 * Returns `s` itself when nothing changes.
 */
export function normalizeText(s: string): string {
  const out = normalizeWords(s);
  return out.length >= DATE_TIME_MIN && out.length <= DATE_TIME_MAX ? spellInstant(out) : out;
}

/** A string that is only a date and a time of day, spelled `YYYY-MM-DDTHH:MM:SS`; any other string as it is. */
function spellInstant(s: string): string {
  // Most strings of this length are ids and names: two character tests turn them away before the expression runs.
  const at = s.charCodeAt(10);
  if (s.charCodeAt(4) !== 45 || (at !== 84 && at !== 32)) return s;
  const instant = DATE_TIME.exec(s);
  return instant === null ? s : `${instant[1]}T${instant[2]}:${instant[3] ?? '00'}`;
}

/** Rules 1-5 (see normalizeText). */
function normalizeWords(s: string): string {
  if (s.length > MAX_NORMALIZED_CHARS || (!MAY_CHANGE.test(s) && !isTerminalMark(s.charCodeAt(s.length - 1)))) return s;
  if (s.length > MEMO_MAX_CHARS) return normalizeUncached(s);
  let out = memo.get(s);
  if (out === undefined) {
    out = normalizeUncached(s);
    if (memo.size >= MEMO_MAX_ENTRIES) memo.clear();
    memo.set(s, out);
  }
  return out;
}

// Agents repeat their arguments (that is what loops are), and rows repeat their strings: remember recent results.
const MEMO_MAX_ENTRIES = 1024;
const MEMO_MAX_CHARS = 1024;
const memo = new Map<string, string>();

function normalizeUncached(s: string): string {
  const n = s.length;
  // One pass over the code units decides, for the common ASCII case, whether there is anything to do.
  let spaces = 0;
  let anomaly = false;
  let upper = false;
  let code = false;
  let prevSpace = true;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 32) {
      if (prevSpace) anomaly = true;
      prevSpace = true;
      spaces++;
      continue;
    }
    prevSpace = false;
    if (c >= 128) return normalizeUnicode(s);
    if (c >= 65 && c <= 90) upper = true;
    else if (c >= 9 && c <= 13) anomaly = true;
    else if (CODE_CHAR_CODES[c] === 1) code = true;
  }
  if (prevSpace && n > 0) anomaly = true;
  if (code) return spaces > 0 || anomaly ? collapseCode(s) : s;
  if (!anomaly && !upper && !isTerminalMark(s.charCodeAt(n - 1))) {
    if (spaces === 0) return s;
    // Already lower-case and single-spaced: only a repeated token can change it.
    const tokens = s.split(' ');
    if (!hasRepeat(tokens)) return s;
    return prose(tokens, s, false, isAsciiWord);
  }
  return prose(anomaly ? s.trim().split(WHITESPACE_RUN) : s.split(' '), s, anomaly, isAsciiWord);
}

function hasRepeat(tokens: string[]): boolean {
  const n = tokens.length;
  if (n > SCAN_TOKENS) return new Set(tokens).size !== n;
  for (let i = 1; i < n; i++) {
    const t = tokens[i];
    for (let j = 0; j < i; j++) if (tokens[j] === t) return true;
  }
  return false;
}

/**
 * Code keeps its case and its words, but spacing is style: runs collapse, and
 * a space next to an operator or separator goes (`1249.99 * 0.0825` is
 * `1249.99*0.0825`, `f(a, b)` is `f(a,b)`). `-` is not among them: flags
 * (`ls -la`) need their space.
 */
function collapseCode(s: string): string {
  const trimmed = s.trim();
  if (trimmed === '') return '';
  const out = trimmed.split(WHITESPACE_RUN).join(' ').replace(SPACE_AT_OPERATOR, '$1');
  return out === s ? s : out;
}
const SPACE_AT_OPERATOR = / ?([=(){}[\]<>;|&,*+/]) ?/g;

/** Case folding and repeated-word dropping over whitespace-separated tokens; `changed` says the tokens are already known not to rejoin into `original`. */
function prose(tokens: string[], original: string, changed: boolean, isWord: (t: string) => boolean): string {
  let last = tokens.length - 1;
  while (last >= 0 && tokens[last] === '') last--;
  if (last >= 0) {
    const t = tokens[last] as string;
    const bare = withoutTerminalMarks(t, isWord);
    if (bare !== t) {
      tokens[last] = bare;
      changed = true;
    }
  }
  const useSet = tokens.length > SCAN_TOKENS;
  const seen = useSet ? new Set<string>() : null;
  const seenList: string[] = [];
  const kept: string[] = [];
  for (const token of tokens) {
    if (token === '') continue;
    if (!isWord(token)) {
      kept.push(token);
      continue;
    }
    const word = token.toLowerCase();
    if (seen !== null ? seen.has(word) : seenList.includes(word)) {
      changed = true;
      continue;
    }
    if (seen !== null) seen.add(word);
    else seenList.push(word);
    if (word !== token) changed = true;
    kept.push(word);
  }
  if (!changed) return original;
  const out = kept.join(' ');
  return out === original ? original : out;
}

/** `?`, `!` or `.`: sentence-ending marks, which do not change what a prose query asks. */
function isTerminalMark(c: number): boolean {
  return c === 63 || c === 33 || c === 46;
}

/**
 * The token without the run of terminal marks that ends it, when what is
 * left is a plain word ending in a letter ("invoice?!" → "invoice"); else the
 * token itself: "2.", "a.py.", "e.g.", "U.S.A." and a lone "?" keep their marks.
 */
function withoutTerminalMarks(t: string, isWord: (t: string) => boolean): string {
  let end = t.length;
  while (end > 0 && isTerminalMark(t.charCodeAt(end - 1))) end--;
  if (end === t.length || end === 0) return t;
  const last = t.charCodeAt(end - 1);
  if (last === 44 || last === 59) return t; // , ;
  const bare = t.slice(0, end);
  return isWord(bare) ? bare : t;
}

/** {@link WORD} for ASCII tokens, without a regex. */
function isAsciiWord(t: string): boolean {
  let end = t.length;
  const last = t.charCodeAt(end - 1);
  if (last === 44 || last === 59 || last === 33 || last === 63) end--; // , ; ! ?
  let prevLetter = false;
  for (let i = 0; i < end; i++) {
    const c = t.charCodeAt(i);
    const lower = c | 0x20; // folds A-Z onto a-z; no other ASCII code lands in a-z
    if (lower >= 97 && lower <= 122) {
      prevLetter = true;
      continue;
    }
    // ' or - join two letter runs.
    if ((c === 39 || c === 45) && prevLetter && i + 1 < end) {
      prevLetter = false;
      continue;
    }
    return false;
  }
  return prevLetter;
}

function isUnicodeWord(t: string): boolean {
  return WORD.test(t);
}

/** The same rules for strings with non-ASCII characters (Unicode letters, spaces and case). */
function normalizeUnicode(s: string): string {
  if (s.indexOf(' ') === -1 && !MAYBE_CHANGES.test(s) && !isTerminalMark(s.charCodeAt(s.length - 1))) return s;
  const trimmed = s.trim();
  if (trimmed === '') return '';
  if (CODE_CHARS.test(trimmed)) return collapseCode(s);
  return prose(trimmed.split(WHITESPACE_RUN), s, true, isUnicodeWord);
}
