import { describe, expect, it } from 'vitest';
import { argsShapeHash, canonicalize, fingerprintArgs, hashText } from '../../../src/fingerprint/index.js';

describe('argsShapeHash', () => {
  it('is the hash of the canonical text with each digit run written 0', () => {
    const args = { sku: 'A-10490', limit: 10, price: 12.5 };
    expect(canonicalize(args)).toBe('{"limit":10,"price":12.5,"sku":"A-10490"}');
    expect(argsShapeHash(args)).toBe(hashText('{"limit":0,"price":0.0,"sku":"A-0"}'));
    expect(argsShapeHash(args)).toMatch(/^[0-9a-f]{16}$/);
  });

  const same: [string, unknown, unknown][] = [
    ['made-up ids that differ in digits', { tracking: '1Z999AA10123456784' }, { tracking: '1Z999AA10123456790' }],
    ['order numbers', { order: 'A-10490' }, { order: 'A-10491' }],
    ['digit runs of any length', { id: 'INV-7' }, { id: 'INV-2026001' }],
    ['numbers', { page: 2 }, { page: 31 }],
    ['key order never matters', { a: 'x1', b: 2 }, { b: 3, a: 'x9' }],
    ['JSON text arguments', '{"id": "A-1"}', { id: 'A-22' }],
  ];
  it.each(same)('same shape: %s', (_name, a, b) => {
    expect(argsShapeHash(a)).toBe(argsShapeHash(b));
  });

  const different: [string, unknown, unknown][] = [
    ['different flag names', { flag: 'ENABLE_NEW_CHECKOUT' }, { flag: 'USE_V2_PRICING' }],
    ['different file names', { path: 'src/routes/users.ts' }, { path: 'src/routes/orders.ts' }],
    ['letters that differ, not digits', { id: 'A-100' }, { id: 'B-100' }],
    ['case is not folded', { q: 'Tokyo' }, { q: 'tokyo' }],
    ['a number versus its text', { n: 1 }, { n: '1' }],
    ['different keys', { order_id: 'A-1' }, { invoice_id: 'A-1' }],
  ];
  it.each(different)('different shape: %s', (_name, a, b) => {
    expect(argsShapeHash(a)).not.toBe(argsShapeHash(b));
  });

  it('drops ignoreArgs members, like normArgsHash', () => {
    const opts = { ignoreArgs: ['request_id'] };
    expect(argsShapeHash({ id: 'A-1', request_id: 'req-ab' }, opts)).toBe(argsShapeHash({ id: 'A-2', request_id: 'req-xy' }, opts));
    expect(argsShapeHash({ id: 'A-1', request_id: 'req-ab' }, opts)).toBe(argsShapeHash({ id: 'A-1' }));
    expect(argsShapeHash({ id: 'A-1', request_id: 'req-ab' })).not.toBe(argsShapeHash({ id: 'A-2', request_id: 'req-xy' }));
  });

  it('does not normalise strings (whitespace and case are shape)', () => {
    expect(argsShapeHash({ q: 'a  b' })).not.toBe(argsShapeHash({ q: 'a b' }));
    expect(fingerprintArgs({ q: 'a  b' }).normArgsHash).toBe(fingerprintArgs({ q: 'a b' }).normArgsHash);
  });

  it('never throws, on hostile and huge arguments', () => {
    const cyclic: Record<string, unknown> = { id: 'A-1' };
    cyclic.self = cyclic;
    const hostile = Object.defineProperty({}, 'x', {
      enumerable: true,
      get() {
        throw new Error('no');
      },
    });
    for (const v of [cyclic, hostile, 1n, undefined, null, 'x'.repeat(2_000_000)]) expect(argsShapeHash(v)).toMatch(/^[0-9a-f]{16}$/);
    expect(argsShapeHash({ blob: 'a1'.repeat(1000) }, { maxBytes: 64 })).not.toBe(argsShapeHash({ blob: 'a2'.repeat(1000) }, { maxBytes: 64 }));
  });
});
