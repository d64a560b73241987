/**
 * An independent implementation of docs/fingerprints.md, "Word signatures",
 * written from the text and kept deliberately plain (strings, arrays and
 * sets, no reused buffers): the oracle the fast implementation is checked
 * against.
 */
import { fmix32, fnv1a } from './sketch-reference.js';

/** The FNV-1a and finaliser the sketch's reference uses: the documents specify the same ones. */
const hash = (s: string): number => fmix32(fnv1a(Array.from({ length: s.length }, (_, i) => s.charCodeAt(i))));

const lowerAscii = (s: string): string => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
const isWordUnit = (c: string): boolean => /[A-Za-z0-9]/.test(c) || c.charCodeAt(0) >= 0x80;
const trim = (s: string): string => {
  let a = 0;
  let b = s.length;
  while (a < b && !isWordUnit(s[a]!)) a++;
  while (b > a && !isWordUnit(s[b - 1]!)) b--;
  return s.slice(a, b);
};

/** The string values (content as written) and literals of a canonical text; keys are left out. */
function values(t: string): { strings: string[]; literals: string[] } {
  const strings: string[] = [];
  const literals: string[] = [];
  let i = 0;
  while (i < t.length) {
    const c = t[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < t.length && t[j] !== '"') j += t[j] === '\\' ? 2 : 1;
      if (t[j + 1] !== ':') strings.push(t.slice(i + 1, Math.min(j, t.length)));
      i = j + 1;
    } else if (isWordUnit(c) || c === '-') {
      let j = i + 1;
      while (j < t.length && (isWordUnit(t[j]!) || '+-.'.includes(t[j]!))) j++;
      literals.push(t.slice(i, j));
      i = j;
    } else {
      i++;
    }
  }
  return { strings, literals };
}

/** Pieces of a string's content: split at spaces and backslash escapes (`\u` and four more units). */
function pieces(content: string): string[] {
  const out: string[] = [];
  let piece = '';
  for (let i = 0; i < content.length; i++) {
    const c = content[i]!;
    if (c === ' ' || c === '\\') {
      if (piece !== '') out.push(piece);
      piece = '';
      if (c === '\\') i += content[i + 1] === 'u' ? 5 : 1;
      continue;
    }
    piece += c;
  }
  if (piece !== '') out.push(piece);
  return out;
}

function wordsOf(piece: string): string[] {
  const out: string[] = [];
  for (const run of piece.match(/[A-Za-z0-9\u0080-\uffff]+/g) ?? []) {
    // Split before a capital that follows a lower-case letter.
    for (const w of run.split(/(?<=[a-z])(?=[A-Z])/)) out.push(lowerAscii(w));
  }
  return out;
}

const identifierLike = (piece: string): boolean => /[0-9_./]|[a-z][A-Z]/.test(piece);
const capitalised = (piece: string): boolean => piece === '' || /^[A-Z0-9\u0080-\uffff]/.test(piece);

export function referenceWordSignature(text: string): string | undefined {
  if (text.length > 1024) return undefined;
  const words = new Set<string>();
  const names = new Set<string>();
  const { strings, literals } = values(text);
  for (const literal of literals) if (literal !== 'null') names.add(lowerAscii(literal));
  for (const content of strings) {
    const ps = pieces(content);
    for (const p of ps) for (const w of wordsOf(p)) words.add(w);
    if (ps.length === 1) {
      const name = trim(ps[0]!);
      if (name !== '') names.add(lowerAscii(name));
    } else if (ps.length > 1) {
      const trimmed = ps.map(trim);
      if (trimmed.every(capitalised) && trim(content) !== '') names.add(lowerAscii(trim(content)));
      for (const p of trimmed) if (p !== '' && identifierLike(p)) names.add(lowerAscii(p));
    }
  }
  if (words.size === 0) return undefined;
  const bits = new Uint8Array(128);
  for (const w of words) bits[63 - (hash(w) >>> 26)] = 1;
  for (const n of names) {
    const m = hash(n);
    for (const shift of [26, 20, 14, 8]) bits[64 + 63 - ((m >>> shift) & 63)] = 1;
  }
  let hex = '';
  for (let i = 0; i < 128; i += 4) hex += ((bits[i]! << 3) | (bits[i + 1]! << 2) | (bits[i + 2]! << 1) | bits[i + 3]!).toString(16);
  return hex;
}
