import { describe, expect, it } from 'vitest';
import { pendingAnswerShape } from '../../../src/fingerprint/index.js';

describe('pendingAnswerShape', () => {
  it('folds handle-like tokens: letters and digits, eight characters or more', () => {
    const queued = (ref: string) => pendingAnswerShape(`{"export_reference":"${ref}","status":"queued"}`);
    expect(queued('EXP-20261130-0412')).toBe(queued('EXP-20261130-0413'));
    expect(queued('CIG-720A87C0')).toBe(queued('CA4710186517a85d1b233886d19e1e934d'));
    expect(pendingAnswerShape('queued as job_8f3a21c9')).toBe(pendingAnswerShape('queued as job_77aa01b2'));
  });

  it('keeps bare numbers, words and short tokens: a count, a percentage, a countdown are progress', () => {
    expect(pendingAnswerShape('{"progress":"40%"}')).not.toBe(pendingAnswerShape('{"progress":"60%"}'));
    expect(pendingAnswerShape('{"reference":20261130}')).not.toBe(pendingAnswerShape('{"reference":20261131}'));
    expect(pendingAnswerShape('retry in 30s')).not.toBe(pendingAnswerShape('retry in 20s'));
    expect(pendingAnswerShape('{"status":"queued"}')).not.toBe(pendingAnswerShape('{"status":"running"}'));
    expect(pendingAnswerShape('queued EXP-20261130-0412')).not.toBe(pendingAnswerShape('running EXP-20261130-0412'));
  });
});
