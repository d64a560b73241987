import { diag, DiagLogLevel, type DiagLogger } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { InternalErrors } from '../../src/internal-errors.js';

const logged: unknown[][] = [];
function listen(): void {
  const log = (...args: unknown[]) => void logged.push(args);
  const logger: DiagLogger = { error: log, warn: log, info: log, debug: log, verbose: log };
  diag.setLogger(logger, DiagLogLevel.ERROR);
}
afterEach(() => {
  diag.disable();
  logged.length = 0;
});

describe('InternalErrors', () => {
  it('returns the fallback for what throws, logs it on the diag channel and hands it to onInternalError', async () => {
    listen();
    const caught: unknown[] = [];
    const errors = new InternalErrors((e) => caught.push(e));
    const bug = new Error('bug');
    expect(errors.run('sync work failed', () => 1, 0)).toBe(1);
    expect(errors.run('sync work failed', () => { throw bug; }, 0)).toBe(0);
    expect(await errors.runAsync('async work failed', async () => { throw bug; }, 'fallback')).toBe('fallback');
    expect(caught).toEqual([bug, bug]);
    expect(logged.map((l) => l[0])).toEqual(['loopguard: sync work failed', 'loopguard: async work failed']);
  });

  it('lets the documented verdict errors through unreported', async () => {
    const caught: unknown[] = [];
    const errors = new InternalErrors((e) => caught.push(e));
    const verdict = new Error('verdict');
    await expect(errors.runAsync('x', () => Promise.reject(verdict), undefined, (e) => e === verdict)).rejects.toBe(verdict);
    expect(caught).toEqual([]);
  });

  it('survives an onInternalError that throws, and logs that too', () => {
    listen();
    const errors = new InternalErrors(() => {
      throw new Error('hook bug');
    });
    expect(() => errors.report('work failed', new Error('bug'))).not.toThrow();
    expect(logged.map((l) => l[0])).toEqual(['loopguard: work failed', 'loopguard: onInternalError threw']);
  });
});
