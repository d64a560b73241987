import { describe, expect, it } from 'vitest';
import { answerNamesSubject, canonicalize, ECHO_MAX_CHARS, subjectShapeHash } from '../../../src/fingerprint/index.js';

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

describe('answerNamesSubject', () => {
  const record = canonicalize({ accounts: [{ name: 'Acme Corporation', owner: 'Jaya Patel', region: 'NA' }] });

  it('reads a word of a named thing in the answer, whatever its case', () => {
    expect(answerNamesSubject({ name: 'Acme Europe' }, record)).toBe(true);
    expect(answerNamesSubject({ name: 'ACME' }, record)).toBe(true);
    expect(answerNamesSubject({ address: '411 W Maple Ave Apt 3B, Springfield, IL 62704' }, canonicalize({ owner_of_record: 'Maple Court Condominium Association' }))).toBe(true);
    // A file's name, not its folder.
    expect(answerNamesSubject({ path: 'app/handlers/invoices.py' }, canonicalize('invoices: ok'))).toBe(true);
    expect(answerNamesSubject({ path: 'app/handlers/invoices.py' }, canonicalize('handlers: ok'))).toBe(false);
  });

  it('reads no name in one answer given to many things', () => {
    const clear = canonicalize({ result: 'clear', lists_checked: ['OFAC SDN', 'UK HMT'], matches: [] });
    expect(answerNamesSubject({ name: 'Northwind Traders Ltd', country: 'GB' }, clear)).toBe(false);
    expect(answerNamesSubject({ robot: 'amr-otter' }, canonicalize({ state: 'DOCKED', battery_pct: 100 }))).toBe(false);
  });

  it('reads only the named values: free text, numbers, bare digits and single letters name nothing', () => {
    expect(answerNamesSubject({ query: 'acme corporation renewal' }, record)).toBe(false);
    expect(answerNamesSubject({ id: 62704, unit: '3' }, canonicalize('unit 3 of 62704'))).toBe(false);
    expect(answerNamesSubject({ initial: 'A' }, canonicalize('a record'))).toBe(false);
  });

  it('reads only the values that share a word with the stretch changed since the tool\'s previous call', () => {
    const coverage = canonicalize({ status: 'INACTIVE', plan: 'Aetna Choice POS II', group: 'Harbor Logistics LLC' });
    const args = { payer: 'aetna', member_id: 'W277410044', patient_name: 'Tomasz Nowak' };
    expect(answerNamesSubject(args, coverage)).toBe(true);
    // The payer is the same for every patient: the answer naming it names no respelled patient.
    expect(answerNamesSubject(args, coverage, undefined, 'W277410044","patient_name":"Tomasz Nowak')).toBe(false);
    expect(answerNamesSubject({ name: 'Acme Corporation EMEA' }, record, undefined, 'Corporation EMEA')).toBe(true);
    expect(answerNamesSubject({ name: 'Acme Europe', region: 'EU' }, record, undefined, 'Europe')).toBe(true);
  });

  it('does not read a result longer than a record', () => {
    expect(answerNamesSubject({ name: 'Acme' }, `${'x '.repeat(ECHO_MAX_CHARS)}acme`)).toBe(false);
  });

  it('never throws', () => {
    const hostile = new Proxy({}, { ownKeys: () => { throw new Error('no'); } });
    expect(answerNamesSubject(hostile, record)).toBe(false);
  });
});
