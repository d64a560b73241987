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
