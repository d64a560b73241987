import { hashText } from './hash.js';

/** Runs of ASCII letters, digits, `_`, `.` and `-` long enough to be a handle. */
const LONG_TOKEN = /[A-Za-z0-9_.-]{8,}/g;
const LETTER = /[A-Za-z]/;
const DIGIT = /[0-9]/;

/**
 * A token spelled as handles minted per call are (`EXP-20261130-0412`,
 * `CIG-720A87C0`, `CA4710186517a85d…`) is folded to `<h>`: eight characters
 * or more, letters and digits both. Bare numbers (a count, a percentage, a
 * step), words and short tokens (`eta 30s`) keep their meaning.
 */
const foldHandle = (token: string): string => (LETTER.test(token) && DIGIT.test(token) ? '<h>' : token);

/**
 * The hash of a result's masked text with every handle-like token folded:
 * two "pending" answers of one shape say the same thing apart from the
 * reference each submission was handed. Computed for pending answers only
 * (docs/fingerprints.md, "Pending answer shape").
 */
export function pendingAnswerShape(maskedText: string): string {
  return hashText(maskedText.replace(LONG_TOKEN, foldHandle));
}

/**
 * Tokens that may be handles another call passes back: 6 to 64 of letters, digits, `_` and `-`, with a digit. A
 * longer token is a blob, not a handle: skipping it keeps what a run holds small whatever its answers carry.
 */
const HANDLE_TOKEN = /(?<![A-Za-z0-9_-])(?=[A-Za-z_-]*[0-9])[A-Za-z0-9_-]{6,64}(?![A-Za-z0-9_-])/g;
/** Handles kept from one pending answer. */
export const MAX_HANDLES = 8;

/** The handle-like tokens of a pending answer's raw canonical text, each once, at most MAX_HANDLES. */
export function handlesIn(rawText: string): string[] {
  const found: string[] = [];
  for (const m of rawText.matchAll(HANDLE_TOKEN)) {
    if (!found.includes(m[0])) found.push(m[0]);
    if (found.length === MAX_HANDLES) break;
  }
  return found;
}

/** The arguments' canonical text with every handle in `handles` standing as a token of its own replaced by `<h>`; undefined when none does. */
export function threadHandles(argsText: string, handles: readonly string[]): string | undefined {
  let out: string | undefined;
  for (const h of handles) {
    const text = out ?? argsText;
    let at = text.indexOf(h);
    if (at < 0) continue;
    let next = '';
    let from = 0;
    for (; at >= 0; at = text.indexOf(h, at + h.length)) {
      if (isTokenChar(text.charCodeAt(at - 1)) || isTokenChar(text.charCodeAt(at + h.length))) continue;
      next += text.slice(from, at) + '<h>';
      from = at + h.length;
    }
    if (from > 0) out = next + text.slice(from);
  }
  return out;
}

function isTokenChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45;
}
