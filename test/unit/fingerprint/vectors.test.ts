import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { argsShapeHash, canonicalize, errorHash, fingerprintArgs, hashValue, resultHash } from '../../../src/fingerprint/index.js';

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
    expect(fingerprintArgs({ query: 'Cheap  flights Tokyo cheap', limit: 10 })).toMatchObject({ argsHash: '5712a37d07afb66a', normArgsHash: 'b7c6082b1a138d48' });
    expect(resultHash({ status: 'pending', job_id: 'job-701', eta_s: 300 })).toBe('2601b4fa5a4f40a6');
    expect(sha16('{"eta_s":300,"job_id":"$lg:volatile","status":"pending"}')).toBe('2601b4fa5a4f40a6');
    // An error class (here an errno phrase) stands for the message; otherwise the masked message itself.
    expect(errorHash('PermissionError', 'permission denied')).toBe('c025a0f88d87296b');
    expect(sha16('{"$lg:failure":["PermissionError",{"$lg:errno":"EACCES"}]}')).toBe('c025a0f88d87296b');
    expect(errorHash('HTTPError', 'HTTP 503 Service Unavailable')).toBe('e2cc44ca12149284');
    expect(sha16('{"$lg:failure":["HTTPError",{"$lg:http":503}]}')).toBe('e2cc44ca12149284');
    expect(errorHash('ValueError', 'invalid literal for int() with base 10')).toBe('49343cc3020b3cad');
    expect(sha16('{"$lg:failure":["ValueError","invalid literal for int() with base 10"]}')).toBe('49343cc3020b3cad');
  });

  it('argsShapeHash, and resultHash with echoed ids and durations', () => {
    expect(argsShapeHash({ sku: 'A-10490', limit: 10 })).toBe('4684880c609415c9');
    expect(sha16('{"limit":0,"sku":"A-0"}')).toBe('4684880c609415c9');
    expect(resultHash({ id: 1880412, status: 'pending', web_url: 'https://ci.example.com/p/1880412' })).toBe('49e97d5170cbfcd1');
    expect(sha16('{"id":"$lg:volatile","status":"pending","web_url":"https://ci.example.com/p/<id>"}')).toBe('49e97d5170cbfcd1');
    expect(resultHash({ stdout: '1 failed, 7 passed in 1.43s' })).toBe('719164e01d963716');
    expect(sha16('{"stdout":"1 failed, 7 passed in <duration>"}')).toBe('719164e01d963716');
  });
});
