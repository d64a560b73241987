/**
 * An independent implementation of docs/fingerprints.md, "Similarity
 * sketches", written from the text and kept deliberately plain (arrays of
 * tokens, no reused buffers): the oracle the fast implementation is checked
 * against.
 */

const u32 = (n: number): number => n >>> 0;
const mul = (a: number, b: number): number => u32(Math.imul(a, b));

export function fnv1a(units: number[]): number {
  let h = 2166136261;
  for (const unit of units) h = mul(u32(h ^ unit), 16777619);
  return h;
}

export function fmix32(h: number): number {
  h = u32(h ^ (h >>> 16));
  h = mul(h, 0x85ebca6b);
  h = u32(h ^ (h >>> 13));
  h = mul(h, 0xc2b2ae35);
  return u32(h ^ (h >>> 16));
}

/** Splits canonical text into skeleton units and free-text strings. */
function split(text: string): { skeleton: number[]; freeTexts: string[] } {
  const t = text.slice(0, 65_536);
  const skeleton: number[] = [];
  const freeTexts: string[] = [];
  let i = 0;
  while (i < t.length) {
    if (t[i] !== '"') {
      skeleton.push(t.charCodeAt(i++));
      continue;
    }
    let j = i + 1;
    while (j < t.length && t[j] !== '"') j += t[j] === '\\' ? 2 : 1;
    const content = t.slice(i + 1, Math.min(j, t.length));
    if (content.length >= 80) {
      freeTexts.push(content);
      skeleton.push(1);
    } else {
      for (const ch of t.slice(i, Math.min(j + 1, t.length))) for (let k = 0; k < ch.length; k++) skeleton.push(ch.charCodeAt(k));
    }
    i = j + 1;
  }
  return { skeleton, freeTexts };
}

function tokens(free: string): number[][] {
  const out: number[][] = [];
  let current: number[] = [];
  const flush = (): void => {
    if (current.length > 0) out.push(current);
    current = [];
  };
  for (let i = 0; i < free.length; i++) {
    const c = free.charCodeAt(i);
    if (c === 92) {
      flush();
      i += free[i + 1] === 'u' ? 5 : 1;
    } else if ((c >= 48 && c <= 57) || (c >= 97 && c <= 122) || c >= 128) {
      current.push(c);
    } else if (c >= 65 && c <= 90) {
      current.push(c + 32);
    } else {
      flush();
    }
  }
  flush();
  return out;
}

export function referenceSketch(text: string, tail?: string): string | undefined {
  const { skeleton, freeTexts } = split(text);
  // A failure's last line follows the skeleton, after a line break.
  if (tail !== undefined) skeleton.push(10, ...Array.from({ length: tail.length }, (_, k) => tail.charCodeAt(k)));
  if (freeTexts.length === 0) return undefined;
  const hashes = freeTexts.flatMap(tokens).map(fnv1a);
  const bigrams = hashes.length === 1 ? [fmix32(hashes[0]!)] : hashes.slice(1).map((b, k) => fmix32(u32(hashes[k]! ^ mul(b, 0x9e3779b1))));
  const bins: Array<number | undefined> = new Array(64).fill(undefined);
  for (const s of bigrams) {
    const bin = s >>> 26;
    const v = s & (2 ** 26 - 1);
    if (bins[bin] === undefined || v < bins[bin]!) bins[bin] = v;
  }
  const digits = bins.map((_, k) => {
    if (bigrams.length === 0) return 0;
    for (let step = 0; step < 64; step++) {
      const v = bins[(k + step) % 64];
      if (v !== undefined) return v & 15;
    }
    return 0;
  });
  const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');
  return hex(Math.min(bigrams.length, 255), 2) + hex(fnv1a(skeleton), 8) + digits.map((d) => d.toString(16)).join('');
}
