import { describe, expect, it } from 'vitest';
import { canonicalize, hashText, pageStateHash, textSketch } from '../../../src/fingerprint/index.js';
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

/** A history holding one browsing tool's calls, each `[args, observation]`, hashed, sketched and page-stated as the processor would. */
function browsed(calls: Array<[string, string]>): RunHistory {
  const h = new RunHistory(32);
  for (const [target, text] of calls) {
    const args = hashText(canonicalize({ target }));
    const canonical = canonicalize(text);
    const seen = { resultHash: hashText(canonical), resultSketch: textSketch(canonical), pageState: pageStateHash(text) };
    h.push(1, { tool: 'click', argsHash: args, normArgsHash: args, ...seen, outcome: 'ok', blocked: false, startMs: 0, endMs: 0 });
  }
  return h;
}

const FORUMS = '[Forums](https://forum.example.org/) The viewport shows 21% of the webpage, and is positioned at the top of the page.';
/** Two transcriptions of one unchanged screenshot, as a vision model words them on two visits: far apart as texts. */
const READINGS = [
  'OCR: Sure, here is the transcribed text from the page: --- **Top Section:** **Example Language Forums** Dictionary search: **Rules/Help/FAQ** **Members** **Log in** **Register** --- **Main Content:** **Vocabulary** Threads - 801.5K Messages - 4.1M It takes one to know one. - 6 minutes ago',
  'OCR: Example.org Language Forums Forums Dictionary search: [ input field ] [ search icon ] Rules/Help/FAQ ▼ Members ▼ 🌐 Interface Language [ magnifying glass icon ] Search Log in Register Vocabulary Threads 801.5K Messages 4.1M [ avatar icon ] It takes one to know one. 8 minutes ago · Jmbu Grammar Threads 106.2K',
];

describe('answer numbers of page views', () => {
  it('reads two transcriptions of one screenshot as different texts', () => {
    expect(similarity(READINGS[0]!, READINGS[1]!)).toBeLessThan(NEAR_SIMILARITY);
  });

  it('gives the same click shown the same page view one answer, however the page text reads', () => {
    const h = browsed([
      ['Vocabulary', `${FORUMS} | ${READINGS[0]}`],
      ['Vocabulary', `${FORUMS} | ${READINGS[1]}`],
    ]);
    expect(h.sameResult(0, 1)).toBe(true);
  });

  it('keeps the view at another place on the page, or reached by another click, another answer', () => {
    const lower = FORUMS.replace('positioned at the top of the page', 'positioned 30% down from the top of the page');
    const h = browsed([
      ['Vocabulary', `${FORUMS} | ${READINGS[0]}`],
      ['Vocabulary', `${lower} | ${READINGS[1]}`],
      ['Grammar', `${FORUMS} | ${READINGS[1]}`],
    ]);
    expect(h.sameResult(1, 2)).toBe(false);
    expect(h.sameResult(0, 2)).toBe(false);
  });
});
