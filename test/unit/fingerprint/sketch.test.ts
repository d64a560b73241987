import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalize, errorDigest, FAILURE_TAIL_CHARS, failureTail, resultDigest } from '../../../src/fingerprint/index.js';
import { fnv1a, SKETCH_MAX_CHARS, sketchShingles, sketchSimilarity, textSketch } from '../../../src/fingerprint/sketch.js';
import { fnv1a as referenceFnv1a, referenceSketch } from './sketch-reference.js';

const TRACEBACK =
  'Traceback (most recent call last):\n  File "book_store.py", line 44\n    new_content="""def total(basket):\n                ^\nSyntaxError: incomplete input';
const PAGE = {
  status: 'running',
  page: 'Address: file:///workspace/report.zip | Title: Download complete. | You previously visited this page 9 seconds ago. | Viewport position: Showing page 1 of 1.',
};

describe('fnv1a', () => {
  it('agrees with the plain one-unit-a-turn definition on texts of odd and even lengths', () => {
    expect(fnv1a('')).toBe(0x811c9dc5);
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (s) => {
        expect(fnv1a(s)).toBe(referenceFnv1a(Array.from({ length: s.length }, (_, i) => s.charCodeAt(i))));
      }),
      { numRuns: 300 },
    );
  });
});

describe('textSketch', () => {
  it('matches the vectors in docs/fingerprints.md', () => {
    // No free text: the exact hash says everything.
    expect(textSketch(canonicalize({ query: 'cheap flights tokyo', limit: 10 }))).toBeUndefined();
    expect(textSketch(canonicalize(null))).toBeUndefined();
    expect(textSketch(canonicalize(['a', ...Array.from({ length: 40 }, (_, i) => i), 'b']))).toBeUndefined();
    expect(textSketch(canonicalize(TRACEBACK))).toBe('12040c5b8c77777777daaaaaaaaaaaa22233fffffffaae777333aaaaaeecccffffffeef777');
    expect(textSketch(canonicalize(PAGE))).toBe('16688ee0fe66666666afffffffcccaaaaaaaaadeeeef4402833333aaaaaaaa5bbbb888ebb6');
  });

  it('agrees with an independent implementation of the documented algorithm', () => {
    const text = fc.oneof(fc.string({ maxLength: 200 }), fc.lorem({ maxCount: 60 }), fc.string({ unit: 'grapheme', maxLength: 120 }));
    const value = fc.letrec((tie) => ({
      leaf: fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null)),
      node: fc.oneof({ depthSize: 'small' }, tie('leaf'), fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(fc.string({ maxLength: 8 }), tie('node'), { maxKeys: 4 })),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        const canonical = canonicalize(v);
        expect(textSketch(canonical)).toBe(referenceSketch(canonical));
      }),
      { numRuns: 400 },
    );
  });

  it('agrees with the independent implementation when the last line of a failure joins the skeleton', () => {
    fc.assert(
      fc.property(fc.lorem({ maxCount: 60 }), fc.string({ maxLength: 80 }), (message, tail) => {
        const canonical = canonicalize(message);
        expect(textSketch(canonical, tail)).toBe(referenceSketch(canonical, tail));
      }),
      { numRuns: 200 },
    );
  });

  it('keeps a stray newline in a traceback the same sketch, while the exact hash changes', () => {
    const a = resultDigest(TRACEBACK);
    const b = resultDigest(TRACEBACK.replace('^\n', '^\n\n'));
    expect(a.hash).not.toBe(b.hash);
    expect(a.sketch).toBe(b.sketch);
  });

  it('compares free text only: a changed short field is another skeleton, so never near', () => {
    const running = textSketch(canonicalize({ ...PAGE, status: 'running' }))!;
    const done = textSketch(canonicalize({ ...PAGE, status: 'done' }))!;
    expect(running.slice(2, 10)).not.toBe(done.slice(2, 10));
    expect(sketchSimilarity(running, done)).toBe(0);
  });

  it('rates one page read twice with another relative time near, and another page far', () => {
    const page = (seconds: number) =>
      `Treasury Division | Queen Anne's County, MD. You previously visited this page ${seconds} seconds ago. The treasury division collects property taxes, utility bills and special assessments; pay online, by mail or in person at the county office. Email the department or call during office hours.`;
    const other =
      'Board of Education | Meeting agenda, minutes and livestream archive for the school year, with the calendar of public hearings, budget workshops and the superintendent search.';
    const sketch = (v: string) => textSketch(canonicalize(v))!;
    expect(sketchSimilarity(sketch(page(9)), sketch(page(12)))).toBeGreaterThan(0.65);
    expect(sketchSimilarity(sketch(page(9)), sketch(other))).toBeLessThan(0.25);
  });

  it('reads at most SKETCH_MAX_CHARS: a 10 MB value costs what its head costs', () => {
    const huge = 'lorem ipsum dolor sit amet '.repeat(400_000);
    expect(huge.length).toBeGreaterThan(10_000_000);
    const text = canonicalize(huge);
    expect(textSketch(text)).toBe(textSketch(text.slice(0, SKETCH_MAX_CHARS)));
  });
});

describe('the sketch of a failure', () => {
  it('matches the vector in docs/fingerprints.md', () => {
    expect(errorDigest('ToolError', TRACEBACK).sketch).toBe('121b5eae4877777777daaaaaaaaaaaa22233fffffffaae777333aaaaaeecccffffffeef777');
  });

  it('takes the last line of a failure of two lines or more, within the last FAILURE_TAIL_CHARS', () => {
    expect(failureTail('Traceback (most recent call last):\n  File "a.py", line 3\nNameError: x  ')).toBe('NameError: x');
    expect(failureTail('fatal: not a git repository\r\n  (or any parent)')).toBe('(or any parent)');
    expect(failureTail('one line only')).toBeUndefined();
    expect(failureTail(`banner\n${'x'.repeat(FAILURE_TAIL_CHARS)}`)).toBeUndefined();
    expect(failureTail(`banner\n${'x'.repeat(FAILURE_TAIL_CHARS - 2)}`)).toBe('x'.repeat(FAILURE_TAIL_CHARS - 2));
  });

  it('keeps failures that share a banner but end otherwise apart, and a stray newline or another duration together', () => {
    const banner = 'test session starts: platform linux, Python 3.9.20, pytest-7.4.0, pluggy-1.3.0, rootdir /testbed\nRunning tests with Astropy version 5.2.dev64 from the source tree, remote data off, plugins doctestplus and hypothesis\n';
    const one = errorDigest('ToolError', `${banner}=== 1 failed, 186 passed in 1.30s ===`).sketch!;
    const two = errorDigest('ToolError', `${banner}=== 2 failed, 185 passed in 1.31s ===`).sketch!;
    expect(sketchSimilarity(one, two)).toBe(0);
    // Without the last line in the skeleton, the shared banner makes them near.
    const bare = (m: string) => textSketch(canonicalize({ '$lg:failure': ['ToolError', m] }))!;
    expect(sketchSimilarity(bare(`${banner}=== 1 failed, 186 passed ===`), bare(`${banner}=== 2 failed, 185 passed ===`))).toBeGreaterThan(0.65);
    const again = errorDigest('ToolError', `${banner}\n=== 1 failed, 186 passed in 2.07s ===\n`).sketch!;
    expect(again.slice(2, 10)).toBe(one.slice(2, 10));
    expect(sketchSimilarity(one, again)).toBeGreaterThan(0.65);
  });
});

describe('sketchShingles', () => {
  it('reads the first two hex digits in either case, and anything else as parseInt reads it', () => {
    expect(sketchShingles('ff00000000')).toBe(255);
    expect(sketchShingles('1A')).toBe(26);
    expect(sketchShingles('0c' + '0'.repeat(72))).toBe(12);
    expect(sketchShingles('1g')).toBe(1);
    expect(sketchShingles(' 9')).toBe(9);
    expect(sketchShingles('zz')).toBe(0);
    expect(sketchShingles('')).toBe(0);
  });
});
