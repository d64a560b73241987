import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalize, fingerprintArgs, hashValue, normalizeText } from '../../../src/fingerprint/index.js';

const norm = (args: unknown, opts?: Parameters<typeof fingerprintArgs>[1]): string => fingerprintArgs(args, opts).normArgsHash;

describe('fingerprintArgs', () => {
  it('argsHash is the hash of the canonical arguments, key order ignored', () => {
    const fp = fingerprintArgs({ b: [1, 2], a: 'x' });
    expect(fp.argsHash).toBe(hashValue({ a: 'x', b: [1, 2] }));
    expect(fingerprintArgs({ a: 'x', b: [1, 2] })).toEqual(fp);
  });

  it('normArgsHash is the same string as argsHash when normalisation changes nothing', () => {
    const fp = fingerprintArgs({ url: 'https://files.example.com/reports/report-01.pdf', n: 3 });
    expect(fp.normArgsHash).toBe(fp.argsHash);
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (v) => {
        const f = fingerprintArgs(v);
        expect(f.argsHash).toBe(hashValue(v));
        // Normalising twice changes nothing more.
        const once = fingerprintArgs(v).normArgsHash;
        expect(once).toMatch(/^[0-9a-f]{16}$/);
      }),
      { numRuns: 300 },
    );
  });

  it('a JSON text argument hashes like the JSON it holds (span attributes carry arguments as text)', () => {
    expect(fingerprintArgs('{"q": "x", "n": 1}')).toEqual(fingerprintArgs({ n: 1, q: 'x' }));
    expect(fingerprintArgs('not json {').argsHash).toBe(hashValue('not json {'));
  });
});

describe('normalisation merges near-duplicates', () => {
  const merged: [string, unknown, unknown][] = [
    ['a word repeated later is dropped', { query: 'cheap flights tokyo cheap cheap' }, { query: 'cheap flights tokyo' }],
    ['repeated several times', { query: 'cheap flights tokyo cheap cheap cheap' }, { query: 'cheap flights tokyo cheap' }],
    ['whitespace runs collapse and are trimmed', { query: '  cheap \t flights\n\ntokyo  ' }, { query: 'cheap flights tokyo' }],
    ['letter case is folded', { query: 'Cheap Flights TOKYO' }, { query: 'cheap flights tokyo' }],
    ['single word case', { city: 'Tokyo' }, { city: 'tokyo' }],
    ['non-ASCII words fold too', { q: 'Café CAFÉ Crème' }, { q: 'café crème' }],
    ['words with an inner apostrophe or hyphen', { q: "Don't re-run don't" }, { q: "don't re-run" }],
    ['strings inside arrays and nested objects', { filters: [{ tag: 'Red  Shoes' }] }, { filters: [{ tag: 'red shoes' }] }],
    ['a date and time with a space or a T, without seconds', { at: '2024-07-27 08:00' }, { at: '2024-07-27T08:00:00' }],
    ['a date and time with a T, without seconds', { at: '2024-07-27T08:00' }, { at: '2024-07-27T08:00:00' }],
    ['a date and time with a space and seconds', { at: '2024-07-27 08:00:30' }, { at: '2024-07-27T08:00:30' }],
  ];
  it.each(merged)('%s', (_name, a, b) => {
    expect(norm(a)).toBe(norm(b));
    expect(fingerprintArgs(a).argsHash).not.toBe(fingerprintArgs(b).argsHash);
  });

  it('ignoreArgs drops fields at any depth by exact key', () => {
    const opts = { ignoreArgs: ['request_id'] };
    const a = { q: 'x', request_id: 'r-1', meta: { request_id: 'r-2', page: 1 } };
    const b = { q: 'x', request_id: 'r-9', meta: { request_id: 'r-8', page: 1 } };
    expect(norm(a, opts)).toBe(norm(b, opts));
    expect(norm(a, opts)).toBe(norm({ q: 'x', meta: { page: 1 } }));
    // Exact match only: other keys stay.
    expect(norm({ q: 'x', requestId: 'r-1' }, opts)).not.toBe(norm({ q: 'x', requestId: 'r-2' }, opts));
    // And only for normArgsHash.
    expect(fingerprintArgs(a, opts).argsHash).not.toBe(fingerprintArgs(b, opts).argsHash);
  });
});

describe('normalisation keeps calls that do different things apart', () => {
  const distinct: [string, unknown, unknown][] = [
    [
      'the same command shape on different files',
      { cmd: `python -c "compile(open('a.py').read(), 'a.py', 'exec')"` },
      { cmd: `python -c "compile(open('b.py').read(), 'b.py', 'exec')"` },
    ],
    ['different programs with the same flag', { cmd: 'java -version' }, { cmd: 'mvn -version' }],
    ['argument order', { cmd: 'cp a b' }, { cmd: 'cp b a' }],
    ['flags keep their case', { cmd: 'ls -r' }, { cmd: 'ls -R' }],
    ['repeated flags are kept', { cmd: 'ssh -v -v host' }, { cmd: 'ssh -v host' }],
    ['numbers stay significant', { q: 'page 2' }, { q: 'page 3' }],
    ['repeated numbers are kept', { q: 'matrix 1 0 0 1' }, { q: 'matrix 1 0' }],
    ['paths keep their case', { path: 'src/Readme.md' }, { path: 'src/README.md' }],
    ['URLs keep their case', { url: 'https://example.com/A' }, { url: 'https://example.com/a' }],
    ['identifiers with digits keep their case', { id: 'aB3dE' }, { id: 'Ab3De' }],
    ['code keeps case and repetitions', { code: 'y = x + x' }, { code: 'y = x + x + x' }],
    ['code keeps identifier case', { code: 'print(Foo + foo)' }, { code: 'print(foo + foo)' }],
    ['SQL keeps its repeated words', { sql: 'SELECT name FROM t WHERE name = 1' }, { sql: 'SELECT name FROM t WHERE = 1' }],
    ['keys are never normalised', { Query: 'x' }, { query: 'x' }],
    ['different words', { q: 'cheap flights tokyo' }, { q: 'cheap flights osaka' }],
    ['a number versus its text', { n: 1 }, { n: '1' }],
    ['another minute or second', { at: '2024-07-27 08:00' }, { at: '2024-07-27T08:00:30' }],
    ['a time zone is part of the instant', { at: '2024-07-27T08:00:00' }, { at: '2024-07-27T08:00:00Z' }],
    ['a date and time inside a sentence', { q: 'deliver 2024-07-27 08:00' }, { q: 'deliver 2024-07-27T08:00:00' }],
  ];
  it.each(distinct)('%s', (_name, a, b) => {
    expect(norm(a)).not.toBe(norm(b));
  });

  it('keeps the case and words of code-like strings; only spacing goes (runs, and spaces at operators)', () => {
    const cmd = `python -c "compile(open('a.py').read(), 'a.py', 'exec')"`;
    expect(normalizeText(cmd)).toBe(`python -c "compile(open('a.py').read(),'a.py','exec')"`);
    expect(normalizeText(cmd)).not.toBe(normalizeText(cmd.replaceAll('a.py', 'b.py')));
    expect(normalizeText(`  grep -R  "Foo" src | wc -l `)).toBe(`grep -R "Foo" src|wc -l`);
    expect(normalizeText('1249.99 * 0.0825')).toBe(normalizeText('1249.99*0.0825'));
    expect(normalizeText('SELECT * FROM t WHERE a = 1')).toBe(normalizeText('SELECT *  FROM t WHERE a=1'));
    expect(normalizeText('ls -la')).toBe('ls -la');
  });

  it('spells a lone date and time one way: T between, seconds 00 when none are given', () => {
    expect(normalizeText(' 2024-07-27  08:00 ')).toBe('2024-07-27T08:00:00');
    expect(normalizeText('2024-07-27 8:00')).toBe('2024-07-27 8:00');
  });
});

describe('normalizeText', () => {
  it('returns the very same string when nothing changes', () => {
    const s = 'cheap flights tokyo';
    expect(normalizeText(s)).toBe(s);
    expect(normalizeText('')).toBe('');
    expect(normalizeText('   ')).toBe('');
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        const once = normalizeText(s);
        expect(normalizeText(once)).toBe(once);
      }),
      { numRuns: 2000 },
    );
  });

  it('never changes a token that is not a plain word', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[A-Za-z0-9./_-]*[0-9./_][A-Za-z0-9./_-]*$/), { minLength: 1, maxLength: 6 }), (tokens) => {
        // Except a plain word followed by terminal marks at the very end ("Plan A."), which loses its marks (tested below).
        fc.pre(!/^[A-Za-z]+(?:[-'][A-Za-z]+)*[.!?]+$/.test(tokens[tokens.length - 1] as string));
        const s = tokens.join(' ');
        expect(normalizeText(s)).toBe(s.trim().split(/\s+/).join(' '));
      }),
      { numRuns: 500 },
    );
  });

  it('leaves very long strings alone (bounded cost on the hot path)', () => {
    const long = 'Word '.repeat(20_000);
    expect(normalizeText(long)).toBe(long);
  });
});

describe('fingerprintArgs never throws and stays bounded', () => {
  it('exotic and hostile arguments', () => {
    const cyclic: Record<string, unknown> = { q: 'Hello  World' };
    cyclic.self = cyclic;
    const hostile = Object.defineProperty({}, 'x', {
      enumerable: true,
      get() {
        throw new Error('no');
      },
    });
    for (const v of [cyclic, hostile, 1n, Symbol('s'), () => 1, new Map([['a', 'B  C']]), undefined, null]) {
      const fp = fingerprintArgs(v);
      expect(fp.argsHash).toMatch(/^[0-9a-f]{16}$/);
      expect(fp.normArgsHash).toMatch(/^[0-9a-f]{16}$/);
    }
    expect(fingerprintArgs(cyclic).normArgsHash).not.toBe(fingerprintArgs(cyclic).argsHash);
  });

  it('a 10 MB argument, in string and object form; one changed character changes both hashes', () => {
    const big = 'x'.repeat(10 * 1024 * 1024);
    const other = big.slice(0, -1) + 'y';
    for (const [a, b] of [
      [{ content: big }, { content: other }],
      [big, other],
      [{ lines: big.match(/.{1,100}/g) }, { lines: other.match(/.{1,100}/g) }],
    ] as [unknown, unknown][]) {
      const fa = fingerprintArgs(a);
      const fb = fingerprintArgs(b);
      expect(fa.argsHash).not.toBe(fb.argsHash);
      expect(fa.normArgsHash).not.toBe(fb.normArgsHash);
      expect(fingerprintArgs(a)).toEqual(fa);
    }
  });

  it('arguments whose canonical text outgrows maxBytes are not normalised (bounded cost)', () => {
    const rows = Array.from({ length: 50 }, (_, i) => ({ text: `Some  Words words ${i}` }));
    const small = fingerprintArgs(rows, { maxBytes: 1 << 20 });
    expect(small.normArgsHash).not.toBe(small.argsHash);
    const capped = fingerprintArgs(rows, { maxBytes: 256 });
    expect(capped.normArgsHash).toBe(capped.argsHash);
    expect(fingerprintArgs({ a: 'X  Y' }, { maxBytes: 64 }).normArgsHash).toBe(hashValue({ a: 'x y' }));
  });

  it('does not reach inside Map or Set (their elements are sorted by untransformed text)', () => {
    const fp = fingerprintArgs({ m: new Map([['k', 'A  B']]), s: new Set(['C  D']) }, { ignoreArgs: ['k'] });
    expect(fp.normArgsHash).toBe(fp.argsHash);
  });

  it('normalised text is the canonical text of the normalised value', () => {
    const fp = fingerprintArgs({ b: 'X  Y', a: ['Z'] });
    expect(fp.normArgsHash).toBe(hashValue({ a: ['z'], b: 'x y' }));
    expect(canonicalize({ a: ['z'], b: 'x y' })).toBe('{"a":["z"],"b":"x y"}');
  });
});

describe('terminal ? ! . of prose', () => {
  const merged: [string, unknown, unknown][] = [
    ['a trailing question mark', { query: 'how do I cancel my invoice' }, { query: 'how do I cancel my invoice?' }],
    ['with case and spacing too', { query: 'How do I  change the billing email on an Invoice?' }, { query: 'how do i change the billing email on an invoice' }],
    ['a run of marks', { q: 'what now?!' }, { q: 'what now' }],
    ['an ellipsis and a period', { q: 'Wait for the build...' }, { q: 'wait for the build.' }],
    ['the unstripped word then repeats an earlier one', { q: 'invoice or invoice?' }, { q: 'invoice or' }],
    ['non-ASCII words with the mark attached', { q: 'Où est la Gare?' }, { q: 'où est la gare' }],
  ];
  it.each(merged)('merged: %s', (_name, a, b) => {
    expect(norm(a)).toBe(norm(b));
  });

  const distinct: [string, unknown, unknown][] = [
    ['a number before the mark', { q: 'go to page 2.' }, { q: 'go to page 2' }],
    ['a path before the mark', { q: 'open a.py.' }, { q: 'open a.py' }],
    ['abbreviations with inner dots', { q: 'made in the U.S.A.' }, { q: 'made in the U.S.A' }],
    ['code keeps its marks', { code: 'print(x)?' }, { code: 'print(x)' }],
    ['only the end of the string: a mark inside stays', { q: 'invoice? thanks' }, { q: 'invoice thanks' }],
    ['a detached mark is a token of its own', { q: 'cancel ?' }, { q: 'cancel' }],
  ];
  it.each(distinct)('kept apart: %s', (_name, a, b) => {
    expect(norm(a)).not.toBe(norm(b));
  });

  it('normalizeText', () => {
    expect(normalizeText('How do I cancel my invoice?')).toBe('how do i cancel my invoice');
    expect(normalizeText('done.')).toBe('done');
    expect(normalizeText('Plan A.')).toBe('plan a');
    expect(normalizeText('e.g.')).toBe('e.g.');
    expect(normalizeText('?')).toBe('?');
    expect(normalizeText('what,?')).toBe('what,?');
  });
});
