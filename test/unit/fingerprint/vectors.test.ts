import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalize, errorHash, fingerprintArgs, hashValue, resultHash } from '../../../src/fingerprint/index.js';

/** The vectors published in docs/fingerprints.md, for other implementations to check against. */
const sha16 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 16);

describe('documented vectors', () => {
  it('plain JSON', () => {
    expect(canonicalize({ query: 'cheap flights tokyo', limit: 10 })).toBe('{"limit":10,"query":"cheap flights tokyo"}');
    expect(hashValue({ query: 'cheap flights tokyo', limit: 10 })).toBe('b7c6082b1a138d48');
    expect(sha16('{"limit":10,"query":"cheap flights tokyo"}')).toBe('b7c6082b1a138d48');
    expect(hashValue({})).toBe('44136fa355b3678a');
    expect(hashValue(null)).toBe('74234e98afe7498f');
  });

  it('fingerprintArgs, resultHash, errorHash', () => {
    expect(fingerprintArgs({ query: 'Cheap  flights Tokyo cheap', limit: 10 })).toEqual({ argsHash: '5712a37d07afb66a', normArgsHash: 'b7c6082b1a138d48' });
    expect(resultHash({ status: 'pending', job_id: 'job-701', eta_s: 300 })).toBe('2601b4fa5a4f40a6');
    expect(sha16('{"eta_s":300,"job_id":"$lg:volatile","status":"pending"}')).toBe('2601b4fa5a4f40a6');
    expect(errorHash('PermissionError', 'permission denied')).toBe('1092e2bd1cdb7a84');
    expect(sha16('{"$lg:failure":["PermissionError","permission denied"]}')).toBe('1092e2bd1cdb7a84');
  });
});
