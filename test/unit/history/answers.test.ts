import { describe, expect, it } from 'vitest';
import { canonicalize, hashText, textSketch } from '../../../src/fingerprint/index.js';
import { DRIFT_SIMILARITY, NEAR_SIMILARITY, sketchSimilarity } from '../../../src/fingerprint/sketch.js';
import { RunHistory } from '../../../src/history.js';
import { ordersTable } from './drifting-table.js';

/** A history holding one tool's polls of the same call, each answered `texts[i]` (hashed and sketched as the processor would). */
function polled(texts: string[]): RunHistory {
  const h = new RunHistory(32);
  const args = hashText('list_orders|latest');
  for (const text of texts) {
    const canonical = canonicalize(text);
    const result = { resultHash: hashText(canonical), resultSketch: textSketch(canonical) };
    h.push(1, { tool: 'list_orders', argsHash: args, normArgsHash: args, ...result, outcome: 'ok', blocked: false, startMs: 0, endMs: 0 });
  }
  return h;
}

const similarity = (a: string, b: string) => sketchSimilarity(textSketch(canonicalize(a))!, textSketch(canonicalize(b))!);

describe('answer numbers', () => {
  it('measures the polled table near from poll to poll, but drifted past the first reading three polls on', () => {
    for (let i = 0; i < 8; i++) {
      expect(similarity(ordersTable(i), ordersTable(i + 1))).toBeGreaterThanOrEqual(NEAR_SIMILARITY);
      expect(similarity(ordersTable(i), ordersTable(i + 3))).toBeLessThan(DRIFT_SIMILARITY);
    }
  });

  it('gives a table drifting a little with each poll a new answer once it is far from the first reading, though near the latest', () => {
    const h = polled([0, 1, 2, 3, 4, 5].map((i) => ordersTable(i)));
    const same = (p: number, q: number) => h.sameResult(5 - p, 5 - q);
    // Polls 0 to 2 are one answer and 3 to 5 another; chained reading to reading, all six would be one.
    expect(same(0, 1)).toBe(true);
    expect(same(0, 2)).toBe(true);
    expect(same(2, 3)).toBe(false);
    expect(same(3, 5)).toBe(true);
  });

  it('keeps an unchanged table whose header says another time one answer, however many polls', () => {
    const h = polled([9, 11, 14, 17, 21, 24, 28, 31].map((seconds) => ordersTable(0, seconds)));
    for (let back = 1; back < 8; back++) expect(h.sameResult(0, back)).toBe(true);
  });
});
