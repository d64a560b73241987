import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { argsWordSignature, canonicalize, fingerprintArgs } from '../../../src/fingerprint/index.js';
import { rewordedWords, SIGNATURE_WORDS, signatureWords, wordSignature, WORDS_MAX_CHARS } from '../../../src/fingerprint/words.js';
import { referenceWordSignature } from './words-reference.js';

const signature = (args: unknown): string | undefined => wordSignature(canonicalize(args));

/** Are two argument values the same question reworded, as the history compares them? */
function reworded(a: unknown, b: unknown): boolean {
  const w = new Uint32Array(2 * SIGNATURE_WORDS);
  signatureWords(signature(a)!, w, 0);
  signatureWords(signature(b)!, w, SIGNATURE_WORDS);
  return rewordedWords(w, 0, SIGNATURE_WORDS);
}

describe('wordSignature', () => {
  it('matches the vectors in docs/fingerprints.md', () => {
    expect(signature({ entity: 'Pontotoc County, Oklahoma CBS station' })).toBe('01400004000012000000000000000000');
    expect(signature({ class_name: 'LogNorm', method_name: 'inverse' })).toBe('00200020020000000040e08102800000');
    expect(signature({ path: 'app/routes/admin.py', pattern: 'legacy_price_round' })).toBe('4402040004006000002008000028100a');
    expect(signature({})).toBeUndefined();
    expect(signature({ string_id: 48211, unread: true })).toBeUndefined();
  });

  it('agrees with an independent implementation of the documented algorithm', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.lorem({ maxCount: 8 }),
      fc.constantFrom('LogNorm', 'Intro Biology Honors Section', 'app/routes/x.py', 'rg -n "PaymentRetry" -g \'*.kt\'', 'Zoë Ünal\n', ' a\tb '),
      fc.string({ unit: 'grapheme', maxLength: 40 }),
    );
    const value = fc.letrec((tie) => ({
      leaf: fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null)),
      node: fc.oneof({ depthSize: 'small' }, tie('leaf'), fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(fc.string({ maxLength: 8 }), tie('node'), { maxKeys: 4 })),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        const canonical = canonicalize(v);
        expect(wordSignature(canonical)).toBe(referenceWordSignature(canonical));
      }),
      { numRuns: 500 },
    );
  });

  it('reads no text longer than WORDS_MAX_CHARS, and leaves long free text to the sketch', () => {
    expect(wordSignature(canonicalize({ q: 'word '.repeat(WORDS_MAX_CHARS) }))).toBeUndefined();
    const long = { text: Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ') };
    expect(fingerprintArgs(long).argsSketch).toBeDefined();
    expect(argsWordSignature(long, fingerprintArgs(long).argsSketch)).toBeUndefined();
    const short = { query: 'iPhone 14 news' };
    expect(argsWordSignature(short, fingerprintArgs(short).argsSketch)).toBe(signature(short));
  });

  it('drops ignoreArgs members, as argsHash does: a fresh request id is not a name of the question', () => {
    const ignoreArgs = ['request_id'];
    const first = { query: 'refund policy', request_id: 'req-8f31c2' };
    const second = { query: 'refund policy', request_id: 'req-0a77de' };
    expect(argsWordSignature(first, undefined, { ignoreArgs })).toBe(argsWordSignature(second, undefined, { ignoreArgs }));
    expect(argsWordSignature(first, undefined, { ignoreArgs })).toBe(signature({ query: 'refund policy' }));
    expect(argsWordSignature(first, undefined)).not.toBe(argsWordSignature(second, undefined));
  });
});

describe('rewordedWords', () => {
  it('reads the same question in other words, of one tool or another, as reworded', () => {
    expect(reworded({ entity: 'Pontotoc County, Oklahoma CBS station' }, { entity: 'Pontotoc County, Oklahoma CBS-affiliated station' })).toBe(true);
    expect(reworded({ query: 'iPhone 14 news' }, { query: 'latest news iPhone 14' })).toBe(true);
    // A name added (the method asked within the class) rewords the question.
    expect(reworded({ class_name: 'LogNorm' }, { class_name: 'LogNorm', method_name: 'inverse' })).toBe(true);
    expect(reworded({ command: "rg -n 'RetryPolicy' src" }, { command: "rg -n 'RetryPolicy' src" })).toBe(true);
  });

  it('reads another thing asked the same way, or other words, as another question', () => {
    // A name swapped: another file, another id, another day, another title.
    expect(reworded({ pattern: 'legacy_price_round', path: 'app/routes/admin.py' }, { pattern: 'legacy_price_round', path: 'app/routes/auth.py' })).toBe(false);
    expect(reworded({ reference: 'DEP-118204' }, { reference: 'DEP-118211' })).toBe(false);
    expect(reworded({ origin: 'JFK', destination: 'ORD', date: '2024-05-01' }, { origin: 'JFK', destination: 'ORD', date: '2024-05-02' })).toBe(false);
    expect(reworded({ section: 'Intro Biology Honors Section' }, { section: 'Intro Biology Evening Section' })).toBe(false);
    expect(reworded({ query: 'iPhone 14 news' }, { query: 'iPhone 15 news' })).toBe(false);
    // Words: fewer than half shared.
    expect(reworded({ query: 'Lisbon tide tables' }, { query: 'Lisbon ferry timetable' })).toBe(false);
  });
});
