import { describe, expect, it } from 'vitest';
import { subjectShapeHash } from '../../../src/fingerprint/index.js';

describe('subjectShapeHash', () => {
  it('gives one shape to the same question about different named things', () => {
    expect(subjectShapeHash({ city: 'Lisbon', units: 'metric' })).toBe(subjectShapeHash({ city: 'Faro', units: 'metric' }));
    expect(subjectShapeHash({ sku: 'MUG-11OZ-BLK' })).toBe(subjectShapeHash({ sku: 'MUG-15OZ-WHT' }));
    expect(subjectShapeHash({ date: '2026-12-01', minutes: 30 })).toBe(subjectShapeHash({ date: '2026-12-02', minutes: 30 }));
  });

  it('reads the numbers and dates inside a command line as its subjects (a backfill month by month)', () => {
    const month = (m: number) => ({ command: `dbt run --select fct_events --vars '{"backfill_start": "2026-0${m}-01"}'` });
    expect(subjectShapeHash(month(1))).toBe(subjectShapeHash(month(2)));
    expect(subjectShapeHash(month(1))).not.toBe(subjectShapeHash({ command: `dbt build --select fct_events --vars '{"backfill_start": "2026-01-01"}'` }));
  });

  it('tells a reworded question or a path spelt otherwise apart', () => {
    expect(subjectShapeHash({ query: 'how to reset my password' })).not.toBe(subjectShapeHash({ query: 'password reset steps' }));
    expect(subjectShapeHash({ path: './src/components/Checkout.tsx' })).not.toBe(subjectShapeHash({ path: 'src/components//Checkout.tsx' }));
  });

  it('never throws', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(subjectShapeHash(cyclic)).toMatch(/^[0-9a-f]{16}$/);
    expect(subjectShapeHash(10n)).toMatch(/^[0-9a-f]{16}$/);
  });
});
