import { describe, expect, it } from 'vitest';
import { handlesIn, pendingAnswerShape, threadHandles } from '../../../src/fingerprint/index.js';

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

describe('handlesIn and threadHandles', () => {
  it('takes the tokens with a digit, six characters or more, each once', () => {
    expect(handlesIn('{"id":77410622,"statementHandle":"01b8f2d1-0603-4f2e-0000-1d2a0048b112","status":"pending","n":12,"url":"/jobs/77410622"}')).toEqual([
      '77410622',
      '01b8f2d1-0603-4f2e-0000-1d2a0048b112',
    ]);
    expect(handlesIn('{"status":"queued","position":3}')).toEqual([]);
    // A token past 64 characters is a blob (base64, a hash chain), not a handle: skipped whole, never cut.
    expect(handlesIn(`{"blob":"${'a1'.repeat(40)}","job":"job-42x9"}`)).toEqual(['job-42x9']);
  });

  it('replaces a handle only where it stands as a token of its own', () => {
    expect(threadHandles('{"job_id":77410622,"note":"after 77410622x"}', ['77410622'])).toBe('{"job_id":<h>,"note":"after 77410622x"}');
    expect(threadHandles('{"job_id":177410622}', ['77410622'])).toBeUndefined();
    expect(threadHandles('{"a":"h-000001","b":"h-000002"}', ['h-000001', 'h-000002'])).toBe('{"a":"<h>","b":"<h>"}');
  });
});
