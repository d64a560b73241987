import { describe, expect, it } from 'vitest';
import { RunHistory, type HistoryEntry } from '../../../src/history.js';

function call(name: string, i: number): HistoryEntry {
  const h = (s: string) => (s + '0000000000000000').slice(0, 16);
  return { tool: 't', argsHash: h(name), normArgsHash: h(name), resultHash: h('f' + name), outcome: 'ok', blocked: false, startMs: i, endMs: i, informative: true };
}

describe('RunHistory.firstFullPeriod', () => {
  it('is the shortest period p >= 2 whose normalised counter reached p, the cycle search starting there', () => {
    const h = new RunHistory(30);
    const names = ['a1', 'b2', 'c3', 'a1', 'b2', 'c3'];
    const seen: number[] = [];
    names.forEach((n, i) => {
      h.push(1, call(n, i));
      seen.push(h.firstFullPeriod());
      for (let p = 2; p < (h.firstFullPeriod() || h.periods + 1); p++) expect(h.normRun(p)).toBeLessThan(p);
    });
    // a b c a b: period 3 has run 2 (< 3); the sixth call closes a whole period.
    expect(seen).toEqual([0, 0, 0, 0, 0, 3]);
    expect(h.normRun(3)).toBe(3);
    h.push(1, call('d4', 6));
    expect(h.firstFullPeriod()).toBe(0);
  });
});
