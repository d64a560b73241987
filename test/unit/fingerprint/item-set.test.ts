import { describe, expect, it } from 'vitest';
import { resultDigest } from '../../../src/fingerprint/index.js';
import { ITEMS_MAX_CHARS, ITEMS_MAX_NODES, itemSetHash } from '../../../src/fingerprint/item-set.js';

const hit = (id: string, score: number, text: string) => ({ id, score, text });
const HITS = [hit('release.md#c3', 0.742, 'Patch releases every second Tuesday.'), hit('lts.md#c1', 0.731, 'LTS lines: 4.x, 5.x.'), hit('branching.md#c0', 0.688, 'main is always releasable.')];

describe('itemSetHash', () => {
  it('reads the same hits in another order, with other scores, as the same items', () => {
    const again = [{ ...HITS[2]!, score: 0.77 }, { ...HITS[0]!, score: 0.701 }, { ...HITS[1]!, score: 0.75 }];
    const h = itemSetHash({ matches: HITS });
    expect(h).not.toBe(0);
    expect(itemSetHash({ matches: again })).toBe(h);
    // Key order inside an item is no difference either; a bare array of hits lists them too.
    expect(itemSetHash({ matches: HITS.map(({ id, score, text }) => ({ text, score, id })) })).toBe(h);
    expect(itemSetHash(HITS)).not.toBe(0);
  });

  it('tells another hit, one hit fewer, a changed integer and a changed field beside the list apart', () => {
    const h = itemSetHash({ matches: HITS });
    expect(itemSetHash({ matches: [HITS[0], HITS[1], hit('security.md#c2', 0.7, 'Report vulnerabilities.')] })).not.toBe(h);
    expect(itemSetHash({ matches: HITS.slice(0, 2) })).not.toBe(itemSetHash({ matches: HITS.slice(0, 3) }));
    expect(itemSetHash({ rows: [{ sku: 'a', qty: 3 }, { sku: 'b', qty: 1 }] })).not.toBe(itemSetHash({ rows: [{ sku: 'a', qty: 4 }, { sku: 'b', qty: 1 }] }));
    expect(itemSetHash({ matches: HITS, namespace: 'eng' })).not.toBe(itemSetHash({ matches: HITS, namespace: 'sre' }));
    // Integers beyond 32 bits are read whole.
    expect(itemSetHash([{ n: 2 ** 40 }, { n: 1 }])).not.toBe(itemSetHash([{ n: 2 ** 41 }, { n: 1 }]));
  });

  it('gives a result that lists nothing no hash: a record, a scalar, a list of one', () => {
    expect(itemSetHash({ status: 'ok', score: 0.5 })).toBe(0);
    expect(itemSetHash('two hits')).toBe(0);
    expect(itemSetHash(null)).toBe(0);
    expect(itemSetHash({ matches: [HITS[0]] })).toBe(0);
    expect(itemSetHash({ matches: [] })).toBe(0);
  });

  it('reads no more than its bounds, and never throws', () => {
    expect(itemSetHash(Array.from({ length: ITEMS_MAX_NODES }, (_, i) => i))).toBe(0);
    expect(itemSetHash(['x'.repeat(ITEMS_MAX_CHARS), 'y'])).toBe(0);
    const hostile = [
      1,
      Object.defineProperty({}, 'boom', {
        enumerable: true,
        get() {
          throw new Error('getter');
        },
      }),
    ];
    expect(itemSetHash(hostile)).toBe(0);
    expect(itemSetHash(hostile[1])).toBe(0);
    const cyclic: unknown[] = [1];
    cyclic.push(cyclic);
    expect(itemSetHash(cyclic)).toBe(0);
    let deep: unknown = 'leaf';
    for (let i = 0; i < 40; i++) deep = [deep, i];
    expect(itemSetHash(deep)).toBe(0);
  });

  it('is computed in the result digest, from a JSON text as from its value', () => {
    expect(resultDigest({ matches: HITS }).items).toBe(itemSetHash({ matches: HITS }));
    expect(resultDigest(JSON.stringify({ matches: HITS })).items).toBe(itemSetHash({ matches: HITS }));
    expect(resultDigest({ status: 'ok' }).items).toBe(0);
  });
});
