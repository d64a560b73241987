import { describe, expect, it } from 'vitest';
import { FlaggedCalls } from '../../src/flagged-calls.js';

describe('FlaggedCalls', () => {
  it('tells a call flagged in an earlier episode from one flagged in this one', () => {
    const f = new FlaggedCalls();
    expect(f.flag(1, 'a', 1, false)).toBe(false);
    // Other calls with verdicts keep the episode open (a cycle's calls each draw one).
    expect(f.flag(2, 'b', 2, false)).toBe(false);
    expect(f.flag(1, 'a', 3, false)).toBe(false);
    f.quiet();
    expect(f.flag(2, 'b', 5, false)).toBe(true);
    // The same tool with other arguments is another call.
    expect(f.flag(1, 'c', 6, false)).toBe(false);
  });

  it('leaves a critical behind at the next call, a warning only when its episode ends', () => {
    const f = new FlaggedCalls();
    expect(f.flag(1, 'a', 1, true)).toBe(false);
    // Back to back: the same pattern insisted on.
    expect(f.flag(1, 'a', 2, true)).toBe(false);
    expect(f.flag(2, 'b', 3, false)).toBe(false);
    expect(f.flag(1, 'a', 4, true)).toBe(true);
    expect(f.flag(2, 'b', 5, false)).toBe(false);
  });

  it('forgets the oldest call beyond its bound', () => {
    const f = new FlaggedCalls();
    f.flag(0, 'first', 1, false);
    for (let i = 1; i <= 256; i++) f.flag(i, 'x', i + 1, false);
    f.quiet();
    expect(f.flag(0, 'first', 300, false)).toBe(false);
    expect(f.flag(256, 'x', 301, false)).toBe(true);
  });
});
