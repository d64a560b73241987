import { describe, expect, it } from 'vitest';
import { appendNudge } from '../../instrumentation/append-nudge.js';

describe('appendNudge', () => {
  it('adds a paragraph to a string result', () => {
    expect(appendNudge('42 rows', 'Stop repeating.')).toBe('42 rows\n\nStop repeating.');
  });

  it('adds a loopguard_notice field to a copy of a plain object', () => {
    const result = { rows: 42 };
    expect(appendNudge(result, 'Stop repeating.')).toEqual({ rows: 42, loopguard_notice: 'Stop repeating.' });
    expect(result).toEqual({ rows: 42 });
    expect(appendNudge(Object.assign(Object.create(null), { rows: 1 }), 'n')).toMatchObject({ loopguard_notice: 'n' });
  });

  it('leaves other results as they are', () => {
    const list = [1, 2];
    const date = new Date(0);
    expect(appendNudge(list, 'n')).toBe(list);
    expect(appendNudge(date, 'n')).toBe(date);
    expect(appendNudge(undefined, 'n')).toBeUndefined();
  });
});
