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

  it('reads proper names, addresses, citations and file names in one folder as different subjects', () => {
    expect(subjectShapeHash({ member_id: 'W284716493', patient_name: 'Maria Okafor' })).toBe(subjectShapeHash({ member_id: 'W301558820', patient_name: 'Daniel Brooks' }));
    expect(subjectShapeHash({ address: '71 Orchard St, New York, NY 10002' })).toBe(subjectShapeHash({ address: '1501 Lexington Ave, New York, NY 10029' }));
    expect(subjectShapeHash({ citation: 'Ashcroft v. Iqbal, 556 U.S. 662 (2009)' })).toBe(subjectShapeHash({ citation: 'Celotex Corp. v. Catrett, 477 U.S. 317 (1986)' }));
    expect(subjectShapeHash({ citation: 'Chevron U.S.A. Inc. v. Natural Resources Defense Council, Inc., 467 U.S. 837 (1984)' })).toBe(
      subjectShapeHash({ citation: 'Lujan v. Defenders of Wildlife, 504 U.S. 555 (1992)' }),
    );
    expect(subjectShapeHash({ document: 'Contracts/NDAs/NDA - Harbor Freight Robotics.pdf', clause: 'governing_law' })).toBe(
      subjectShapeHash({ document: 'Contracts/NDAs/NDA - Pinecrest Analytics.pdf', clause: 'governing_law' }),
    );
  });

  it('keeps codes, lower-case questions and other folders as the words they are', () => {
    expect(subjectShapeHash({ text: 'Q3 FY2025' })).not.toBe(subjectShapeHash({ text: 'FY2025 Q3' }));
    expect(subjectShapeHash({ query: 'reset password steps' })).not.toBe(subjectShapeHash({ query: 'how to reset a password' }));
    expect(subjectShapeHash({ path: 'docs/a.md' })).not.toBe(subjectShapeHash({ path: 'src/a.md' }));
    // Guessing page names on a site is one question asked of many addresses.
    expect(subjectShapeHash({ url: 'https://docs.acme.dev/api/auth.html' })).not.toBe(subjectShapeHash({ url: 'https://docs.acme.dev/api/login.html' }));
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
