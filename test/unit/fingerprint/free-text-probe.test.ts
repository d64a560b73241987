import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalize, canonicalizeArgs, canonicalizeMasked } from '../../../src/fingerprint/canonical.js';
import { fingerprintArgs, resultDigest } from '../../../src/fingerprint/index.js';
import { textSketch } from '../../../src/fingerprint/sketch.js';

/**
 * The walk tells the sketch when a text cannot hold free text, and the text
 * is then not scanned: that shortcut must never drop a sketch textSketch
 * would have produced from the same text.
 */

const DEFAULT_MASK = { defaults: true, extra: null };

/** Strings around the free-text length (80), with characters that are escaped in JSON. */
const around80 = fc.integer({ min: 76, max: 84 });
const text = fc.oneof(
  around80.chain((n) => fc.string({ minLength: n, maxLength: n })),
  around80.chain((n) => fc.string({ minLength: n, maxLength: n, unit: fc.constantFrom('a', ' ', '"', '\n', '\\', 'é', '\u0001') })),
  fc.string({ maxLength: 12 }),
);
const value = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.integer(),
    fc.constant(null),
    text.map((s) => new Error(s)),
    text.map((s) => Symbol(s)),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.array(tie('v'), { maxLength: 3 }).map((a) => new Set(a)),
    fc.array(fc.tuple(tie('v'), tie('v')), { maxLength: 2 }).map((e) => new Map(e)),
    fc.dictionary(fc.oneof(text, fc.constantFrom('id', 'job_id', 'q')), tie('v'), { maxKeys: 4 }),
  ),
})).v;
const maxBytes = fc.oneof(fc.integer({ min: 64, max: 400 }), fc.constant(1_048_576));

describe('free-text probe', () => {
  it('never hides a sketch: a text it rules out has none', () => {
    fc.assert(
      fc.property(value, maxBytes, (v, limit) => {
        const args = canonicalizeArgs(v, limit, null);
        if (!args.mayHoldFreeText) expect(textSketch(args.text)).toBeUndefined();
        const masked = canonicalizeMasked(v, limit, DEFAULT_MASK);
        if (!masked.mayHoldFreeText) expect(textSketch(masked.text)).toBeUndefined();
        expect(fingerprintArgs(v, { maxBytes: limit }).argsSketch).toBe(textSketch(canonicalize(v, limit)));
        expect(resultDigest(v, { maxBytes: limit }).sketch).toBe(textSketch(masked.text));
      }),
      { numRuns: 1000 },
    );
  });

  it('rules out the texts of ordinary calls, which then get no sketch', () => {
    const call = { query: 'cheap flights tokyo', filters: { site: 'github.com', language: 'en' }, limit: 10 };
    expect(canonicalizeArgs(call, 1_048_576, null).mayHoldFreeText).toBe(false);
    expect(canonicalizeMasked({ total: 3, hits: [{ title: 'x', url: 'https://example.com/a' }] }, 1_048_576, DEFAULT_MASK).mayHoldFreeText).toBe(false);
    expect(fingerprintArgs(call).argsSketch).toBeUndefined();
  });

  it('sees free text wherever the canonical text holds it: a value, a member name, an error marker', () => {
    const long = 'word '.repeat(16).trim(); // 79 characters: 81 written, one short of free text
    expect(canonicalizeArgs({ q: long }, 1_048_576, null).mayHoldFreeText).toBe(false);
    for (const v of [{ q: long + 's' }, { [long + 's']: 1 }, new Error(long + 's'), new Map([[1, long + 's']])]) {
      expect(canonicalizeArgs(v, 1_048_576, null).mayHoldFreeText).toBe(true);
      expect(fingerprintArgs(v).argsSketch).toBe(textSketch(canonicalize(v)));
      expect(fingerprintArgs(v).argsSketch).toBeDefined();
    }
  });

  it('scans a text cut at maxBytes, whose truncation marker can lengthen a cut string into free text', () => {
    // `["` + 19 + `","` + 79 letters, cut just before the closing quote: the marker's `{` makes the literal 80 long.
    const v = ['b'.repeat(19), 'a'.repeat(79)];
    const args = canonicalizeArgs(v, 103, null);
    expect(args.mayHoldFreeText).toBe(true);
    expect(textSketch(args.text)).toBeDefined();
    expect(fingerprintArgs(v, { maxBytes: 103 }).argsSketch).toBe(textSketch(args.text));
  });
});
