import { describe, expect, it } from 'vitest';
import { FlaggedCalls } from '../../src/flagged-calls.js';

describe('FlaggedCalls', () => {
  it('tells a call flagged in an earlier episode from one flagged in this one', () => {
    const f = new FlaggedCalls();
    expect(f.flag(1, 'a', 1, false, 1)).toBe(false);
    // Other calls with verdicts keep the episode open (a cycle's calls each draw one).
    expect(f.flag(2, 'b', 2, false, 1)).toBe(false);
    expect(f.flag(1, 'a', 3, false, 1)).toBe(false);
    f.quiet();
    expect(f.flag(2, 'b', 5, false, 1)).toBe(true);
    // The same tool with other arguments is another call.
    expect(f.flag(1, 'c', 6, false, 1)).toBe(false);
  });

  it('leaves a critical behind at the next call, a warning only when its episode ends', () => {
    const f = new FlaggedCalls();
    expect(f.flag(1, 'a', 1, true, 1)).toBe(false);
    // Back to back: the same pattern insisted on.
    expect(f.flag(1, 'a', 2, true, 1)).toBe(false);
    expect(f.flag(2, 'b', 3, false, 1)).toBe(false);
    expect(f.flag(1, 'a', 4, true, 1)).toBe(true);
    expect(f.flag(2, 'b', 5, false, 1)).toBe(false);
  });

  it('tells a cycle carried on past its critical from a call repeated back to back', () => {
    const f = new FlaggedCalls();
    expect(f.flag(1, 'a', 5, true, 2)).toBe(false);
    // The cycle's next call reaches critical right after: the run went on as if nothing had been said.
    expect(f.flag(2, 'b', 6, true, 2)).toBe(true);
    // A repeat of one call climbs its tiers instead.
    expect(f.flag(3, 'c', 7, true, 1)).toBe(false);
    expect(f.flag(3, 'c', 8, true, 1)).toBe(false);
  });

  it('needs the critical on the cycle at the call before, in a cycle of the same period', () => {
    const f = new FlaggedCalls();
    f.flag(1, 'a', 1, true, 2);
    expect(f.flag(2, 'b', 2, false, 2)).toBe(false);
    expect(f.flag(3, 'c', 3, true, 2)).toBe(false);
    expect(f.flag(4, 'd', 4, true, 3)).toBe(false);
    f.quiet();
    expect(f.flag(5, 'e', 6, true, 3)).toBe(false);
  });

  it('forgets the oldest call beyond its bound', () => {
    const f = new FlaggedCalls();
    f.flag(0, 'first', 1, false, 1);
    for (let i = 1; i <= 256; i++) f.flag(i, 'x', i + 1, false, 1);
    f.quiet();
    expect(f.flag(0, 'first', 300, false, 1)).toBe(false);
    expect(f.flag(256, 'x', 301, false, 1)).toBe(true);
  });
});
