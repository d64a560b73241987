import { describe, expect, it } from 'vitest';
import { argsShapeHash, maskVolatileText, namesAnIdentifier, resultDigest, resultHash } from '../../../src/fingerprint/index.js';

describe('resultDigest', () => {
  it('hashes as resultHash does and calls a result informative by what it says, not by its masked noise', () => {
    const listing = { hits: [{ id: 1, title: 'Resetting your password', snippet: 'Click Forgot password' }] };
    expect(resultDigest(listing).hash).toBe(resultHash(listing));
    expect(resultDigest(listing).informative).toBe(true);
    expect(resultDigest({ ok: true }).informative).toBe(false);
    // A receipt of fresh ids and timestamps: long text, nothing said.
    expect(resultDigest({ status: 201, body: { id: 'note_88121', created_at: '2026-11-30T09:12:40.000Z' } }).informative).toBe(false);
    // A bare count or verdict is the same answer to many different checks: not specific enough.
    expect(resultDigest({ rows: [{ table: 'orders', null_email_count: 0 }] }).informative).toBe(false);
    expect(resultDigest('No policy issues found in this listing.').informative).toBe(false);
  });
});

describe('namesAnIdentifier', () => {
  it('sees an id member or a UUID at the top level', () => {
    expect(namesAnIdentifier({ pipeline_id: 884213 })).toBe(true);
    expect(namesAnIdentifier({ jobId: 'j-1' })).toBe(true);
    expect(namesAnIdentifier({ operation: 'operations/7c1f6a9e-2b44-4a5e-9d31-6a0d35f1c2aa' })).toBe(true);
    expect(namesAnIdentifier('{"migration_id":"mig_2f8a"}')).toBe(true);
    expect(namesAnIdentifier({ report: 'Q3 revenue', format: 'pdf' })).toBe(false);
    expect(namesAnIdentifier({ project: 'acme/shop', ref: 'main' })).toBe(false);
    expect(namesAnIdentifier(['id'])).toBe(false);
  });

  it('sees sid and handle members, and values with the look of a minted identifier', () => {
    expect(namesAnIdentifier({ call_sid: 'CA554ec9c85c17328c8ad0644761fac2d0' })).toBe(true);
    expect(namesAnIdentifier({ statementHandle: '01b8f2d1-0603-4f2e' })).toBe(true);
    expect(namesAnIdentifier({ call: 'CA554ec9c85c17328c8ad0644761fac2d0' })).toBe(true);
    expect(namesAnIdentifier({ instance: 'i-0c9f3e1d27ab45e81' })).toBe(true);
    // Phrases, paths, phone numbers, dates and short names are no identifiers.
    expect(namesAnIdentifier({ to: '+12125550143', url: 'https://voice.example/twiml/4411' })).toBe(false);
    expect(namesAnIdentifier({ ref: 'fix/flaky-checkout-test-2026', at: '2026-11-30T03:10:02.123Z' })).toBe(false);
    expect(namesAnIdentifier({ queue: 'gpu-a100', script: 'jobs/embed_corpus_v2.sh' })).toBe(false);
  });
});

describe('argsShapeHash', () => {
  it('folds the digits of made-up ids but keeps dates whole', () => {
    expect(argsShapeHash({ order_id: 'A-10490' })).toBe(argsShapeHash({ order_id: 'A-10491' }));
    expect(argsShapeHash({ date: '2026-12-01' })).not.toBe(argsShapeHash({ date: '2026-12-02' }));
  });
});

describe('maskVolatileText in results', () => {
  it('masks pids, finished-in times and labelled request ids', () => {
    expect(maskVolatileText('app.service restarted (pid 41000)')).toBe(maskVolatileText('app.service restarted (pid 41117)'));
    expect(maskVolatileText('BUILD FAILED in 4s')).toBe(maskVolatileText('BUILD FAILED in 7s'));
    expect(maskVolatileText('0 results (request 0604cd31)')).toBe(maskVolatileText('0 results (request 1158e7e1)'));
    expect(maskVolatileText('trace id: 4bf92f3577b34da6')).toBe(maskVolatileText('trace id: 00f067aa0ba902b7'));
  });

  it('masks the clock a log line starts with, when it has seconds', () => {
    expect(maskVolatileText('03:41:07  Running with dbt=1.8.7')).toBe('<time>  Running with dbt=1.8.7');
    expect(maskVolatileText('[9:05:12.250] worker ready')).toBe('[<time>] worker ready');
    expect(maskVolatileText('done at 2026-11-30T03:41:07Z')).toBe('done at <timestamp>');
  });

  it('masks the execution counters of a notebook', () => {
    expect(maskVolatileText('Cell In[7], line 1\n----> 1 df.amount.astype(float)')).toBe('Cell In[<n>], line 1\n----> 1 df.amount.astype(float)');
    expect(maskVolatileText('Out [12]: 42')).toBe('Out[<n>]: 42');
    expect(maskVolatileText('rows[3] and Index[4]')).toBe('rows[3] and Index[4]');
  });

  it('keeps what is state', () => {
    expect(maskVolatileText('opens at 10:00, closes at 18:30')).toBe('opens at 10:00, closes at 18:30');
    expect(maskVolatileText('fe80::1:22:33 and 1:02:03:04')).toBe('fe80::1:22:33 and 1:02:03:04');
    expect(maskVolatileText('retry in 30s')).not.toBe(maskVolatileText('retry in 60s'));
    expect(maskVolatileText('pull request 1234 merged')).not.toBe(maskVolatileText('pull request 1235 merged'));
    expect(maskVolatileText('7 passed')).not.toBe(maskVolatileText('8 passed'));
  });
});
