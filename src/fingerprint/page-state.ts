import { hashText } from './hash.js';

/** How far into a result its header may run: a title, a link and where the view sits fit; page text is not read. */
export const PAGE_HEADER_MAX_CHARS = 400;

/**
 * Which page, and where on it, an observation shows: the hash of its header
 * line, when that line names a web address (a browsing agent's "[title](url)
 * The viewport shows 7% of the webpage, and is positioned at the top", a
 * "Current URL: https://…" line). The line is cut at the first " | " after
 * the address, where page text (OCR, an accessibility tree) usually begins:
 * that text is read anew on every visit, the header is the same each time the
 * agent comes back to the same view. undefined for anything else (JSON text
 * included). Only the hash is kept.
 */
export function pageStateHash(result: unknown): string | undefined {
  // JSON text (too big to have been parsed) is data, not a view: its head can be alike for different answers.
  if (typeof result !== 'string' || JSON_START.test(result)) return undefined;
  // One bounded pass: a long result without a line break is not scanned past its head.
  let end = Math.min(result.length, PAGE_HEADER_MAX_CHARS);
  let address = -1;
  for (let i = 0; i < end; i++) {
    const c = result.charCodeAt(i);
    if (c === NEWLINE || (address >= 0 && c === SPACE && result.startsWith('| ', i + 1))) end = i;
    else if (address < 0 && c === COLON && result.startsWith('//', i + 1)) address = webAddressAt(result, i);
  }
  return address < 0 ? undefined : hashText(result.slice(0, end));
}

/** An object, or an array of values; `[title](url)` opens a markdown link, not an array. */
const JSON_START = /^\s*(\{|\[\s*[[{"\d\]-])/;
const NEWLINE = 10;
const SPACE = 32;
const COLON = 58;

/** Where the address whose "://" is at `colon` begins, if it is an http(s) one; -1 for any other scheme. */
function webAddressAt(text: string, colon: number): number {
  if (text.startsWith('http', colon - 4)) return colon - 4;
  return text.startsWith('https', colon - 5) ? colon - 5 : -1;
}
