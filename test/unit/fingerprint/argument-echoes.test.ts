import { describe, expect, it } from 'vitest';
import { argumentEchoes, MAX_ECHO_DEPTH, MAX_ECHOES } from '../../../src/fingerprint/argument-echoes.js';
import { errorHash } from '../../../src/fingerprint/index.js';

const noMatch = (oldStr: string) => `No replacement was performed, old_str \`${oldStr}\` did not appear verbatim in /repo/src/rst.py.`;

describe('errorHash with the call arguments', () => {
  it('compares a failure that quotes what was asked the same, whatever was asked', () => {
    const tried = ['    def __init__(self):\n        super().__init__()', 'def __init__(self):\n    super().__init__()', 'super().__init__(bookend=False)'];
    const hashes = tried.map((old) => errorHash('ToolError', noMatch(old), { command: 'str_replace', path: '/repo/src/rst.py', old_str: old, new_str: `${old} # fixed` }));
    expect(new Set(hashes).size).toBe(1);
    // Without the arguments the messages differ, as they do.
    expect(errorHash('ToolError', noMatch(tried[0]!))).not.toBe(errorHash('ToolError', noMatch(tried[1]!)));
  });

  it('keeps different failures of the same arguments apart', () => {
    const args = { path: '/repo/src/rst.py', old_str: 'bookend=False' };
    expect(errorHash('ToolError', noMatch('bookend=False'), args)).not.toBe(errorHash('ToolError', 'File /repo/src/rst.py does not exist.', args));
  });

  it('keeps the class of a quoted name it masked (relation "<id>" does not exist)', () => {
    const failure = (table: string) => errorHash('ProgrammingError', `relation "${table}" does not exist\nLINE 1: SELECT count(*) FROM ${table} WHERE day = '2026-11-30'`, { table });
    expect(failure('sales')).toBe(failure('revenue_daily'));
  });

  it('masks an echo only where it stands as a token of its own', () => {
    expect(errorHash('Error', 'order 1234 not found', { order: '1234' })).toBe(errorHash('Error', 'order 9876 not found', { order: '9876' }));
    expect(errorHash('Error', 'order 12345 not found', { order: '1234' })).not.toBe(errorHash('Error', 'order 98765 not found', { order: '9876' }));
  });
});

describe('argumentEchoes', () => {
  it('collects string values of at least four characters, longest first, from JSON text too', () => {
    expect(argumentEchoes({ a: 'abc', b: 'users', c: ['orders_v2', 42, { d: 'users' }] })).toEqual(['orders_v2', 'users']);
    expect(argumentEchoes('{"path":"/etc/app.yaml"}')).toEqual(['/etc/app.yaml']);
    expect(argumentEchoes('plain text argument')).toEqual(['plain text argument']);
  });

  it('is bounded in depth and count', () => {
    let deep: unknown = 'hidden-value';
    for (let i = 0; i < MAX_ECHO_DEPTH + 2; i++) deep = { next: deep };
    expect(argumentEchoes(deep)).toEqual([]);
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, `value-${i}`]));
    expect(argumentEchoes(many)).toHaveLength(MAX_ECHOES);
  });

  it('never throws', () => {
    const hostile = new Proxy({}, { ownKeys: () => { throw new Error('trap'); } });
    expect(argumentEchoes(hostile)).toEqual([]);
    expect(errorHash('E', 'boom', hostile)).toMatch(/^[0-9a-f]{16}$/);
  });
});
