/**
 * A 16-hex-char hash kept as two 32-bit words (its high half, then its low
 * half), so a ring slot holds it without a string.
 */

/** Hex digit values by char code (-1 for anything else); faster than parseInt on a slice, which allocates. */
const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) HEX['0123456789abcdef'.charCodeAt(i)] = i;
for (let i = 10; i < 16; i++) HEX['ABCDEF'.charCodeAt(i - 10)] = i;

/** 32 bits from 8 hex chars at `from`; a malformed hash still yields a stable number. */
function word(hash: string, from: number): number {
  let v = 0;
  for (let i = from; i < from + 8; i++) {
    const c = hash.charCodeAt(i);
    v = (v << 4) | (c < 128 ? HEX[c]! & 15 : c & 15);
  }
  return v >>> 0;
}
export function hi(hash: string): number {
  return word(hash, 0);
}
export function lo(hash: string): number {
  return word(hash, 8);
}
export function hex(h: number, l: number): string {
  return h.toString(16).padStart(8, '0') + l.toString(16).padStart(8, '0');
}

/**
 * The two words of the hash last read, kept: a call's argument and result
 * hashes are read by the look-ups made while its entry is built, then by the
 * push that records it (the same strings), and parsing costs more than the
 * comparison that finds them unchanged.
 */
export class ParsedHash {
  private text = '';
  hi = 0;
  lo = 0;

  /** Parses `hash` into {@link hi} and {@link lo} unless it is the hash read last. */
  read(hash: string): this {
    if (hash !== this.text) {
      this.hi = hi(hash);
      this.lo = lo(hash);
      this.text = hash;
    }
    return this;
  }
}
