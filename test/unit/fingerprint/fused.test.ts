import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fingerprintArgs, hashValue, normalizeText, resultHash } from '../../../src/fingerprint/index.js';
import { maskVolatile, normalizeArgs } from './reference.js';

/**
 * fingerprintArgs and resultHash normalise and mask inside their one
 * canonicalisation pass; normalizeArgs and maskVolatile (reference.ts) apply
 * the same rules to values. Two implementations of one rule set: each checks the other.
 */

const pieces = ['a', 'B', 'Tokyo', 'tokyo', ' ', '  ', '\t', '\n', '-', "'", '/', '.', '1', '=', '(', ',', '?', 'é', 'É', 'Ⅻ', '\u00a0', 'x.py', '2024-07-27', '08:00', ':30', 'T'];
const text = fc.array(fc.constantFrom(...pieces), { maxLength: 12 }).map((p) => p.join(''));
const volatileText = fc.constantFrom(
  'at 2026-11-30T01:02:03Z',
  'id 123e4567-e89b-12d3-a456-426614174000',
  '/tmp/tmp.Ab12Cd34Ef/x',
  'plain',
  'ran in 1.43s, took 12ms',
  'job-1234',
  '1234',
  'see job-1234 and 1234/plain',
);
const keys = fc.constantFrom('id', 'job_id', 'messageId', 'created_at', 'name', 'items', 'ts', 'receipt', 'v', 'request_id', 'q', 'duration_ms');

const value = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text,
    volatileText,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(keys, tie('v'), { maxKeys: 5 }),
  ),
})).v;

describe('fused pass and value-level rules agree', () => {
  it('normArgsHash === hash of normalizeArgs(args)', () => {
    const ignore = ['request_id', 'v'];
    fc.assert(
      fc.property(value, fc.boolean(), (v, withIgnore) => {
        fc.pre(typeof v !== 'string');
        const opts = withIgnore ? { ignoreArgs: ignore } : undefined;
        const expected = hashValue(normalizeArgs(v, withIgnore ? new Set(ignore) : null));
        expect(fingerprintArgs(v, opts).normArgsHash).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });

  it('resultHash === hash of maskVolatile(result)', () => {
    fc.assert(
      fc.property(value, fc.boolean(), (v, defaults) => {
        fc.pre(typeof v !== 'string');
        const extraKeys = ['name'];
        const opts = { maskVolatile: defaults, volatileKeys: extraKeys };
        const expected = hashValue(maskVolatile(v, { defaults, extra: new Set(['name']) }));
        expect(resultHash(v, opts)).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });
});

/** The normalisation rules written plainly with regular expressions, as documented. */
function referenceNormalize(s: string): string {
  const words = referenceNormalizeWords(s);
  const instant = /^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d)(?::(\d\d))?$/.exec(words);
  return instant === null ? words : `${instant[1]}T${instant[2]}:${instant[3] ?? '00'}`;
}

function referenceNormalizeWords(s: string): string {
  const trimmed = s.trim();
  if (trimmed === '') return '';
  const tokens = trimmed.split(/\s+/);
  if (/[=(){}[\]<>;|&$`\\*]/.test(trimmed)) return tokens.join(' ').replace(/ ?([=(){}[\]<>;|&,*+/]) ?/g, '$1');
  // Terminal ? ! . go from the last token when a plain word ending in a letter is left.
  const end = /^(.*?)[.!?]+$/u.exec(tokens[tokens.length - 1] as string);
  if (end !== null && /^[\p{L}\p{M}]+(?:['’-][\p{L}\p{M}]+)*$/u.test(end[1] as string)) tokens[tokens.length - 1] = end[1] as string;
  const seen = new Set<string>();
  const out: string[] = [];
  for (const t of tokens) {
    if (!/^[\p{L}\p{M}]+(?:['’-][\p{L}\p{M}]+)*[,;!?]?$/u.test(t)) {
      out.push(t);
      continue;
    }
    const w = t.toLowerCase();
    if (seen.has(w)) continue;
    seen.add(w);
    out.push(w);
  }
  return out.join(' ');
}

describe('normalizeText matches its documented rules', () => {
  it('on strings built from rule-relevant pieces (ASCII fast path and Unicode path)', () => {
    fc.assert(
      fc.property(text, (s) => {
        expect(normalizeText(s)).toBe(referenceNormalize(s));
      }),
      { numRuns: 5000 },
    );
  });

  it('on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary-ascii' }), (u, a) => {
        expect(normalizeText(u)).toBe(referenceNormalize(u));
        expect(normalizeText(a)).toBe(referenceNormalize(a));
      }),
      { numRuns: 3000 },
    );
  });

  it('many repeated words (Set path) behave like few (scan path)', () => {
    const words = Array.from({ length: 40 }, (_, i) => `w${'abcdefghij'[i % 10]}${'xyz'[i % 3]}`);
    const s = words.concat(words).join(' ');
    expect(normalizeText(s)).toBe(referenceNormalize(s));
    expect(normalizeText(s).split(' ')).toHaveLength(new Set(words).size);
  });
});
