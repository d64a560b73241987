import { describe, expect, it } from 'vitest';
import { hex, hi, lo, ParsedHash } from '../../../src/history/hash-words.js';

describe('hash words', () => {
  it('keeps a 16-hex-char hash as its high and low 32 bits, and gives it back', () => {
    const hash = '0123456789abcdef';
    expect(hi(hash)).toBe(0x01234567);
    expect(lo(hash)).toBe(0x89abcdef);
    expect(hex(hi(hash), lo(hash))).toBe(hash);
    expect(hex(hi('ffffffff00000000'), lo('ffffffff00000000'))).toBe('ffffffff00000000');
  });

  it('reads upper-case digits as their lower-case twins', () => {
    expect(hi('ABCDEF01')).toBe(hi('abcdef01'));
  });

  it('still yields a 32-bit number for a malformed hash: a stray char reads as 15 (past ASCII, as its low 4 bits), a missing one as 0', () => {
    expect(hi('abc')).toBe(0xabc00000);
    expect(hi('0g')).toBe(0x0f000000);
    expect(hi('\u00e90000000')).toBe(0x90000000);
  });

  it('reads a hash into the same words whether it is the one read last or not', () => {
    const parsed = new ParsedHash();
    // The empty hash it starts from reads as two zero words, as hi and lo read it.
    expect([parsed.read('').hi, parsed.lo]).toEqual([hi(''), lo('')]);
    for (const hash of ['0123456789abcdef', '0123456789abcdef', 'ffffffff00000000', '0123456789ABCDEF', 'abc']) {
      parsed.read(hash);
      expect([parsed.hi, parsed.lo]).toEqual([hi(hash), lo(hash)]);
    }
  });
});
