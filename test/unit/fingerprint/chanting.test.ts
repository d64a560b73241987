import { describe, expect, it } from 'vitest';
import { chantRepeats } from '../../../src/fingerprint/chanting.js';

const REPORT = [
  'The outage began at 09:12 when the nightly migration took an exclusive lock on the orders table.',
  'Checkout requests queued behind the lock and the connection pool of the API filled within four minutes.',
  'The on-call engineer saw the error rate climb past two percent and paged the database owner.',
  'Killing the migration released the lock; the queue drained in ninety seconds and latency recovered.',
  'We found that the migration had been tested against a copy with a tenth of the production rows.',
  'Its runtime grew with the table, so the lock that lasted a second in staging lasted six minutes here.',
  'Two alerts fired late because their windows were tuned for slow drifts rather than sudden spikes.',
  'The status page was updated eleven minutes after the first customer report reached support.',
  'Action items: run migrations online with a batched backfill, and rehearse them on a full-size copy.',
  'Alert windows for checkout errors move to one minute, and support gets a direct line to on-call.',
].join(' ');

/** The count is of the chanted 50-character chunk: the last repetition may be too short to hold it whole. */
const about = (repetitions: number) => expect.toSatisfy((n: number) => n === repetitions || n === repetitions - 1);

describe('chantRepeats', () => {
  it('counts a sentence repeated over and over, after an ordinary start', () => {
    const chant = 'Let me check the configuration file again to be sure. ';
    expect(chantRepeats(`I read the logs first. ${chant.repeat(40)}`)).toEqual(about(40));
  });

  it('counts a paragraph repeated with blank lines between, and a chant of a few words', () => {
    expect(chantRepeats(`Summary of the fix.\n\n${'I will now fix the failing test in the payment module.\n\n'.repeat(25)}`)).toEqual(about(25));
    expect(chantRepeats('ha '.repeat(400))).toBeGreaterThan(300);
  });

  it('finds a chant cut off mid-sentence by the output limit', () => {
    const chant = 'The answer is in the second table of the report, ';
    expect(chantRepeats(`${REPORT}\n\n${chant.repeat(30)}The answer is in the sec`)).toEqual(about(30));
  });

  it('leaves a long report alone', () => {
    expect(chantRepeats(`${REPORT}\n\n${REPORT.split('. ').reverse().join('. ')}`)).toBe(0);
  });

  it('leaves a template whose figures change alone (distinct items sharing a prefix)', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `Service svc-${i} handled ${1000 + i * 37} requests with a p99 latency of ${120 + i} ms.`);
    expect(chantRepeats(lines.join(' '))).toBe(0);
  });

  it('leaves tables, lists and code with repeated rows alone', () => {
    const row = '| orders-db | primary | healthy | 0 errors in the last hour |';
    expect(chantRepeats(`| name | role | state | note |\n|---|---|---|---|\n${`${row}\n`.repeat(40)}`)).toBe(0);
    expect(chantRepeats(`Steps:\n${'- run the migration for the customer records table again\n'.repeat(40)}`)).toBe(0);
    expect(chantRepeats(`Steps:\n${Array.from({ length: 40 }, (_, i) => `${i + 1}. restart the worker and check the queue depth once more`).join('\n')}`)).toBe(0);
    const fenced = `Here is the test:\n\n\`\`\`python\n${'assert response.status_code == 200, "unexpected status code"\n'.repeat(40)}\`\`\`\n`;
    expect(chantRepeats(fenced)).toBe(0);
    expect(chantRepeats(`Indented:\n\n${'    assert response.status_code == 200, "unexpected status code"\n'.repeat(40)}`)).toBe(0);
  });

  it('leaves rules drawn with characters alone, inside a line too', () => {
    expect(chantRepeats(`Results\n${'='.repeat(120)}\nAll passed.\n${'-'.repeat(200)}`)).toBe(0);
    expect(chantRepeats(`[INFO] ${'-'.repeat(200)}\n[INFO] BUILD SUCCESS\n[INFO] ${'. '.repeat(200)}`)).toBe(0);
  });

  it('reads only the end of a very long text, and a chant there still counts', () => {
    const counting = Array.from({ length: 600_000 }, (_, i) => i).join(' ');
    const text = `${counting} ${'Retrying the request now. '.repeat(100)}`;
    expect(chantRepeats(text)).toEqual(about(100));
  });
});
