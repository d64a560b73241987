import { createHash } from 'node:crypto';
import canonicalizeReference from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalize, hashText, hashValue, MAX_DEPTH } from '../../../src/fingerprint/index.js';

/** Rebuilds a JSON value with every object's keys inserted in a shuffled order (deterministic per seed). */
function permuteKeys(value: unknown, seed: number): unknown {
  let state = seed >>> 0 || 1;
  const next = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v !== 'object' || v === null) return v;
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [keys[i], keys[j]] = [keys[j] as string, keys[i] as string];
    }
    const out: Record<string, unknown> = {};
    // defineProperty keeps a "__proto__" key an ordinary own member.
    for (const k of keys) Object.defineProperty(out, k, { value: walk((v as Record<string, unknown>)[k]), enumerable: true, configurable: true, writable: true });
    return out;
  };
  return walk(value);
}

function fromIeee754(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

describe('canonicalize: RFC 8785 vectors', () => {
  // Input/output pairs of the JCS reference test data (cyberphone/json-canonicalization testdata).
  const files: [string, string, string][] = [
    [
      'values',
      String.raw`{"numbers": [1E30, 4.50, 333333333.33333329, 2e-3, 0.000000000000000000000000001], "escaping": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/", "literals": [null, true, false]}`,
      String.raw`{"escaping":"€$\u000f\nA'B\"\\\\\"/","literals":[null,true,false],"numbers":[1e+30,4.5,333333333.3333333,0.002,1e-27]}`,
    ],
    [
      'structures',
      String.raw`{"1": {"f": {"f": "hi","F": 5} ,"\n": 56.0}, "10": { }, "": "empty", "a": { }, "111": [ { } ], "A": { }}`,
      String.raw`{"":"empty","1":{"\n":56,"f":{"F":5,"f":"hi"}},"10":{},"111":[{}],"A":{},"a":{}}`,
    ],
    ['arrays', '[56, {"d": true, "10": null, "1": [ ]}]', '[56,{"1":[],"10":null,"d":true}]'],
    [
      'french',
      '{"peach": "This sorting order", "péché": "is wrong according to French", "pêche": "but canonicalization MUST", "sin": "ingnore locale"}',
      '{"peach":"This sorting order","péché":"is wrong according to French","pêche":"but canonicalization MUST","sin":"ingnore locale"}',
    ],
    ['unicode', String.raw`{"Unnormalized Unicode":"\u1e0d\u0307"}`, '{"Unnormalized Unicode":"\u1e0d\u0307"}'],
    [
      'weird',
      String.raw`{"\u20ac": "Euro Sign", "1": "One", "\u0080": "Control\u007f", "\ud83d\ude02": "Smiley", "\u00f6": "Latin Small Letter O With Diaeresis", "\ufb33": "Hebrew Letter Dalet With Dagesh", "</script>": "Browser Challenge"}`,
      '{"1":"One","</script>":"Browser Challenge","\u0080":"Control\u007f","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign","\ud83d\ude02":"Smiley","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    ],
  ];
  it.each(files)('testdata %s', (_name, input, expected) => {
    expect(canonicalize(JSON.parse(input))).toBe(expected);
  });

  it('RFC 8785 §3.2.3 sorting example (UTF-16 code units, not code points or locale)', () => {
    const input = String.raw`{"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control", "\u00f6": "Latin Small Letter O With Diaeresis"}`;
    expect(canonicalize(JSON.parse(input))).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it('RFC 8785 §3.2.4 UTF-8 output of the sample object', () => {
    const text = canonicalize(JSON.parse(String.raw`{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/", "literals": [null, true, false]}`));
    const hex = Buffer.from(text, 'utf8').toString('hex').replace(/(..)/g, '$1 ').trim();
    expect(hex).toBe(
      '7b 22 6c 69 74 65 72 61 6c 73 22 3a 5b 6e 75 6c 6c 2c 74 72 75 65 2c 66 61 6c 73 65 5d 2c 22 6e 75 6d 62 65 72 73 22 3a 5b ' +
        '33 33 33 33 33 33 33 33 33 2e 33 33 33 33 33 33 33 2c 31 65 2b 33 30 2c 34 2e 35 2c 30 2e 30 30 32 2c 31 65 2d 32 37 5d 2c ' +
        '22 73 74 72 69 6e 67 22 3a 22 e2 82 ac 24 5c 75 30 30 30 66 5c 6e 41 27 42 5c 22 5c 5c 5c 5c 5c 22 2f 22 7d',
    );
  });

  // RFC 8785 Appendix B: IEEE 754 bit patterns and their serialisation.
  const numbers: [string, string][] = [
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ];
  it.each(numbers)('Appendix B number 0x%s -> %s', (bits, expected) => {
    expect(canonicalize(fromIeee754(bits))).toBe(expected);
    expect(canonicalize([fromIeee754(bits)])).toBe(`[${expected}]`);
  });

  it('Appendix B non-finite numbers get the $lg:num encoding instead of an error', () => {
    expect(canonicalize(fromIeee754('7fffffffffffffff'))).toBe('{"$lg:num":"NaN"}');
    expect(canonicalize(fromIeee754('7ff0000000000000'))).toBe('{"$lg:num":"Infinity"}');
    expect(canonicalize(-Infinity)).toBe('{"$lg:num":"-Infinity"}');
  });

  it('escapes control characters, quote and backslash exactly like JSON.stringify, nothing else', () => {
    let all = '';
    for (let c = 0; c < 0x250; c++) all += String.fromCharCode(c);
    expect(canonicalize(all)).toBe(JSON.stringify(all));
    expect(canonicalize('<\u2028\u2029/>')).toBe('"<\u2028\u2029/>"');
  });
});

describe('canonicalize: differential against the canonicalize package', () => {
  it('agrees on arbitrary JSON values (full Unicode strings)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary', maxDepth: 6 }), (v) => {
        expect(canonicalize(v)).toBe(canonicalizeReference(v));
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees on arbitrary doubles', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        expect(canonicalize({ n })).toBe(canonicalizeReference({ n }));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('canonicalize: properties', () => {
  it('is invariant under deep key permutation', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), fc.integer(), (v, seed) => {
        const permuted = permuteKeys(v, seed);
        expect(canonicalize(permuted)).toBe(canonicalize(v));
        expect(hashValue(permuted)).toBe(hashValue(v));
      }),
      { numRuns: 1000 },
    );
  });

  it('is stable: the same value hashes the same across calls and across copies', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (v) => {
        const h = hashValue(v);
        expect(hashValue(v)).toBe(h);
        expect(hashValue(JSON.parse(JSON.stringify(v)))).toBe(h);
      }),
      { numRuns: 500 },
    );
  });

  it('separates values whose canonical texts differ', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), fc.jsonValue({ maxDepth: 3 }), (a, b) => {
        if (canonicalize(a) !== canonicalize(b)) expect(hashValue(a)).not.toBe(hashValue(b));
      }),
      { numRuns: 500 },
    );
  });

  it('hashText is the first 16 hex chars of SHA-256 over UTF-8', () => {
    const text = '{"q":"caf\u00e9 \ud83d\ude00"}';
    expect(hashText(text)).toBe(createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex').slice(0, 16));
    expect(hashText(text)).toMatch(/^[0-9a-f]{16}$/);
    expect(hashValue({ b: 1, a: 2 })).toBe(hashText('{"a":2,"b":1}'));
  });
});

describe('canonicalize: values JSON cannot hold', () => {
  class Point {
    constructor(
      public x: number,
      public y: number,
    ) {}
    get sum(): number {
      return this.x + this.y;
    }
  }

  const cases: [string, unknown, string][] = [
    ['undefined at top level', undefined, 'null'],
    ['undefined in an object is dropped', { a: undefined, b: 1 }, '{"b":1}'],
    ['undefined in an array is null', [undefined, 1], '[null,1]'],
    ['array holes are null', [1, , 3], '[1,null,3]'],
    ['-0', -0, '0'],
    ['NaN', NaN, '{"$lg:num":"NaN"}'],
    ['BigInt', 123n, '{"$lg:bigint":"123"}'],
    ['negative BigInt', -(2n ** 70n), '{"$lg:bigint":"-1180591620717411303424"}'],
    ['named function', function search() {}, '{"$lg:fn":"search"}'],
    ['function as a member', { f: function cb() {} }, '{"f":{"$lg:fn":"cb"}}'],
    ['symbol', Symbol('tag'), '{"$lg:symbol":"tag"}'],
    ['symbol without description', Symbol(), '{"$lg:symbol":null}'],
    ['Date', new Date(Date.UTC(2026, 10, 30, 1, 2, 3, 4)), '"2026-11-30T01:02:03.004Z"'],
    ['invalid Date', new Date(NaN), '{"$lg:date":"invalid"}'],
    ['Map sorted by canonical key', new Map<unknown, unknown>([['b', 1], [1, 'x'], ['a', [2]]]), '{"$lg:map":[["a",[2]],["b",1],[1,"x"]]}'],
    ['Set sorted by canonical text', new Set<unknown>(['b', 2, 'a', { k: 1 }]), '{"$lg:set":["a","b",2,{"k":1}]}'],
    ['class instance: own enumerable props only', new Point(1, 2), '{"x":1,"y":2}'],
    ['toJSON is used', { when: { toJSON: () => 'then' } }, '{"when":"then"}'],
    ['toJSON returning undefined drops the member', { a: { toJSON: () => undefined }, b: 1 }, '{"b":1}'],
    ['boxed primitives unwrap', [new Number(3), new String('s'), new Boolean(false)], '[3,"s",false]'],
    ['RegExp', /a+b/gi, '{"$lg:regexp":"/a+b/gi"}'],
    ['Error', new TypeError('bad input'), '{"$lg:exception":"TypeError: bad input"}'],
    ['null-prototype object', Object.assign(Object.create(null) as object, { b: 1, a: 2 }), '{"a":2,"b":1}'],
  ];
  it.each(cases)('%s', (_name, value, expected) => {
    expect(canonicalize(value)).toBe(expected);
  });

  it('bytes are digested, never spelled out', () => {
    const bytes = Buffer.from('hello');
    const digest = createHash('sha256').update(bytes).digest('hex');
    const expected = `{"$lg:bytes":"${digest}","len":5}`;
    expect(canonicalize(bytes)).toBe(expected);
    expect(canonicalize(new Uint8Array(bytes))).toBe(expected);
    expect(canonicalize(new Uint8Array(bytes).buffer)).toBe(expected);
    // A view covers only its own bytes.
    const wide = Buffer.from('xxhelloxx');
    expect(canonicalize(wide.subarray(2, 7))).toBe(expected);
    expect(canonicalize(new DataView(wide.buffer, wide.byteOffset + 2, 5))).toBe(expected);
    expect(canonicalize(new Float64Array([1.5])).startsWith('{"$lg:bytes":')).toBe(true);
    expect(canonicalize(new Uint8Array(0))).toBe(`{"$lg:bytes":"${createHash('sha256').digest('hex')}","len":0}`);
  });

  it('cycles are encoded by how many levels up they point', () => {
    const a: Record<string, unknown> = { name: 'a' };
    a.self = a;
    expect(canonicalize(a)).toBe('{"name":"a","self":{"$lg:cycle":1}}');
    const outer: Record<string, unknown> = { inner: { list: [] as unknown[] } };
    ((outer.inner as { list: unknown[] }).list).push(outer);
    expect(canonicalize(outer)).toBe('{"inner":{"list":[{"$lg:cycle":3}]}}');
    const m = new Map<string, unknown>();
    m.set('me', m);
    expect(canonicalize(m)).toBe('{"$lg:map":[["me",{"$lg:cycle":1}]]}');
  });

  it('shared, non-cyclic references are written out each time', () => {
    const shared = { v: 1 };
    expect(canonicalize({ a: shared, b: shared })).toBe('{"a":{"v":1},"b":{"v":1}}');
  });

  it('throwing getters, toJSON and proxies become $lg:error, never a throw', () => {
    const getter = Object.defineProperty({ ok: 1 }, 'bad', {
      enumerable: true,
      get() {
        throw new RangeError('no access');
      },
    });
    expect(canonicalize(getter)).toBe('{"bad":{"$lg:error":"RangeError: no access"},"ok":1}');
    expect(canonicalize({ x: { toJSON: () => { throw new Error('boom'); } } })).toBe('{"x":{"$lg:error":"Error: boom"}}');
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(canonicalize({ p: proxy })).toMatch(/^\{"p":\{"\$lg:error":"TypeError: .*"\}\}$/);
    const trap = new Proxy({}, { ownKeys() { throw new Error('trap'); } });
    expect(canonicalize(trap)).toBe('{"$lg:error":"Error: trap"}');
    const throwsNonError = Object.defineProperty({}, 'v', { enumerable: true, get() { throw 'plain string'; } });
    expect(canonicalize(throwsNonError)).toBe('{"v":{"$lg:error":"plain string"}}');
  });

  it(`containers deeper than ${MAX_DEPTH} levels become {"$lg:depth":true}`, () => {
    const root: Record<string, unknown> = {};
    let cur = root;
    for (let i = 0; i < 200; i++) {
      const next: Record<string, unknown> = {};
      cur.n = next;
      cur = next;
    }
    const text = canonicalize(root);
    expect(text).toBe('{"n":'.repeat(MAX_DEPTH) + '{"$lg:depth":true}' + '}'.repeat(MAX_DEPTH));
  });

  it('exponential DAGs and huge sparse arrays stay bounded', () => {
    let node: unknown = 'leaf';
    for (let i = 0; i < 60; i++) node = [node, node];
    const dag = canonicalize(node, 4096);
    expect(dag).toMatch(/\{"\$lg:truncated":"[0-9a-f]{64}","len":\d+\}$/);
    const sparse = canonicalize(new Array(2 ** 32 - 1), 4096);
    expect(sparse).toMatch(/\{"\$lg:truncated":"[0-9a-f]{64}","len":\d+\}$/);
    expect(sparse.length).toBeLessThan(5000);
  });

  it('every exotic value hashes without throwing', () => {
    const everything: Record<string, unknown> = {
      fn: () => 1,
      sym: Symbol('s'),
      big: 1n,
      nan: NaN,
      date: new Date(),
      bad: new Date('x'),
      buf: Buffer.alloc(10),
      ab: new ArrayBuffer(4),
      map: new Map([[{ k: 1 }, new Set([1])]]),
      weak: new WeakMap(),
      promise: Promise.resolve(1),
      err: new Error('e'),
      args: (function (..._a: unknown[]) {
        return arguments;
      })(1, 2),
    };
    everything.cycle = everything;
    expect(hashValue(everything)).toMatch(/^[0-9a-f]{16}$/);
    fc.assert(
      fc.property(fc.anything({ withBigInt: true, withBoxedValues: true, withDate: true, withMap: true, withSet: true, withNullPrototype: true, withTypedArray: true, withSparseArray: true, withObjectString: true }), (v) => {
        expect(hashValue(v)).toMatch(/^[0-9a-f]{16}$/);
      }),
      { numRuns: 500 },
    );
  });
});

describe('canonicalize: size bound', () => {
  const MiB = 1024 * 1024;

  it('a 10 MB string is digested directly, and one changed character changes the hash', () => {
    const a = 'a'.repeat(10 * MiB);
    const b = a.slice(0, -1) + 'b';
    const text = canonicalize({ content: a });
    expect(text).toBe(`{"content":{"$lg:str":"${createHash('sha256').update(a).digest('hex')}","len":${10 * MiB}}}`);
    expect(hashValue({ content: a })).not.toBe(hashValue({ content: b }));
    expect(hashValue(a)).not.toBe(hashValue(b));
    expect(hashValue({ content: a })).toBe(hashValue({ content: 'a'.repeat(10 * MiB) }));
  });

  it('a 10 MB object keeps the first maxBytes and digests the rest; one changed character changes the hash', () => {
    const rows = (last: string): unknown => ({
      rows: Array.from({ length: 100_000 }, (_, i) => ({ id: i, name: `row-${i}`, text: 'lorem ipsum dolor sit amet '.repeat(3) })).concat([{ id: -1, name: last, text: '' }]),
    });
    const a = rows('end-a');
    const b = rows('end-b');
    const text = canonicalize(a);
    expect(text.length).toBeLessThan(MiB + 200);
    const full = canonicalizeReference(a) as string;
    expect(full.length).toBeGreaterThan(10 * MiB);
    expect(text.slice(0, MiB)).toBe(full.slice(0, MiB));
    const tail = createHash('sha256').update(full.slice(MiB)).digest('hex');
    expect(text).toBe(`${full.slice(0, MiB)}{"$lg:truncated":"${tail}","len":${full.length}}`);
    expect(hashValue(a)).not.toBe(hashValue(b));
    expect(hashValue(a)).toBe(hashValue(rows('end-a')));
  });

  it('plain JSON within maxBytes is untouched; just over it is cut exactly at maxBytes', () => {
    const v = { s: 'x'.repeat(100) };
    const full = canonicalize(v);
    expect(canonicalize(v, full.length)).toBe(full);
    const cut = canonicalize(v, full.length - 1);
    const tail = createHash('sha256').update(full.slice(full.length - 1)).digest('hex');
    expect(cut).toBe(`${full.slice(0, -1)}{"$lg:truncated":"${tail}","len":${full.length}}`);
  });

  it('never cuts inside a surrogate pair', () => {
    const v = Array.from({ length: 50 }, () => '\ud83d\ude00');
    const full = canonicalize(v);
    // Element k (k >= 1) sits at 5k..5k+4 as `,"\ud83d\ude00"`: its high surrogate is at 5k+2.
    const limit = 5 * 13 + 3;
    expect(full.charCodeAt(limit - 1)).toBe(0xd83d);
    const tail = createHash('sha256').update(full.slice(limit - 1), 'utf8').digest('hex');
    expect(canonicalize(v, limit)).toBe(`${full.slice(0, limit - 1)}{"$lg:truncated":"${tail}","len":${full.length}}`);
  });

  it('a string longer than maxBytes is digested wherever it sits, keys included', () => {
    const long = 'k'.repeat(2000);
    const d = createHash('sha256').update(long).digest('hex');
    expect(canonicalize(long, 1000)).toBe(`{"$lg:str":"${d}","len":2000}`);
    expect(canonicalize({ [long]: long }, 1000)).toBe(`{"$lg:str:${d}:2000":{"$lg:str":"${d}","len":2000}}`);
    expect(canonicalize({ a: long }, 4000)).toBe(`{"a":${JSON.stringify(long)}}`);
  });
});
