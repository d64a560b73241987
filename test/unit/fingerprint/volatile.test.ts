import { describe, expect, it } from 'vitest';
import {
  errorHash,
  hashValue,
  maskErrorMessage,
  maskVolatileText,
  resultHash,
  VOLATILE_KEYS,
  VOLATILE_MARKER,
} from '../../../src/fingerprint/index.js';

describe('resultHash masks volatile fields', () => {
  const same: [string, unknown, unknown][] = [
    [
      'a fresh job id on a re-submitted job',
      { status: 'pending', job_id: 'job-701', eta_s: 300 },
      { status: 'pending', job_id: 'job-702', eta_s: 300 },
    ],
    ['a fresh message id (camelCase)', { MessageId: 'm-1', MD5OfMessageBody: 'abc' }, { MessageId: 'm-2', MD5OfMessageBody: 'abc' }],
    ['a bare id at top level', { id: 17, ok: true }, { id: 18, ok: true }],
    ['mongo _id', { _id: 'a1', n: 1 }, { _id: 'b2', n: 1 }],
    [
      'receipt handles of re-received messages, even inside arrays',
      { Messages: [{ MessageId: 'm-1', ReceiptHandle: 'AQEB-1', Body: 'hi' }] },
      { Messages: [{ MessageId: 'm-1', ReceiptHandle: 'AQEB-2', Body: 'hi' }] },
    ],
    ['timestamps', { ok: true, timestamp: 1764464567 }, { ok: true, timestamp: 1764464999 }],
    ['ts / time / date', { ts: 1, time: '10:00', date: 'Mon', v: 1 }, { ts: 2, time: '10:01', date: 'Tue', v: 1 }],
    ['*_at and *At', { created_at: '2026-01-01', updatedAt: 'x', v: 1 }, { created_at: '2026-01-02', updatedAt: 'y', v: 1 }],
    ['durations with units', { duration_ms: 12, tookMs: 3, elapsed: 1.5, latency_seconds: 2, v: 1 }, { duration_ms: 99, tookMs: 4, elapsed: 2.5, latency_seconds: 3, v: 1 }],
    ['pids', { pid: 4411, started: true }, { pid: 5123, started: true }],
    [
      'measured times under *_duration, *_latency, *_elapsed and query_time',
      { runDuration: 1.42, p99_latency: 80, total_elapsed: 3, meta: { query_time: 0.19 }, v: 1 },
      { runDuration: 0.97, p99_latency: 95, total_elapsed: 4, meta: { query_time: 0.227 }, v: 1 },
    ],
    ['a notebook execution counter', { execution_count: 4, outputs: ['x'] }, { execution_count: 5, outputs: ['x'] }],
    ['request ids, etags, nonces', { request_id: 'r1', ETag: '"abc"', 'x-request-id': 'q', nonce: 5, v: 1 }, { request_id: 'r2', ETag: '"def"', 'x-request-id': 'w', nonce: 6, v: 1 }],
    [
      'ISO timestamps inside text',
      { log: 'started at 2026-11-30T01:02:03.123Z, done' },
      { log: 'started at 2026-11-30T09:59:00.000+02:00, done' },
    ],
    ['UUIDs inside text', { out: 'created 123e4567-e89b-12d3-a456-426614174000' }, { out: 'created 9F1B2C3D-0000-4000-8000-00000000ABCD' }],
    ['mktemp directories', { out: 'wrote /tmp/tmp.Ab12Cd34Ef/report.txt' }, { out: 'wrote /tmp/tmp.Zz98Yy76Xx/report.txt' }],
    ['python tempfile directories', { out: 'cd /tmp/tmpa1b2_c3d && make' }, { out: 'cd /tmp/tmpzz9y8x7w && make' }],
    ['pytest directories', { out: '/tmp/pytest-of-ci/pytest-12/test_a0/x' }, { out: '/tmp/pytest-of-ci/pytest-13/test_a0/x' }],
    ['macOS per-user temp', { out: '/var/folders/x1/abc_def/T/tmpAb12/out' }, { out: '/var/folders/x1/abc_def/T/tmpZz99/out' }],
    ['a plain-text result with a timestamp', 'Sent at 2026-11-30 10:00:01', 'Sent at 2026-11-30 10:05:59'],
    ['JSON text results are masked like the JSON', '{"job_id": "job-1", "status": "pending"}', { status: 'pending', job_id: 'job-2' }],
  ];
  it.each(same)('same hash: %s', (_name, a, b) => {
    expect(resultHash(a)).toBe(resultHash(b));
  });

  const different: [string, unknown, unknown][] = [
    ['a different real field next to a fresh id', { status: 'pending', job_id: 'job-701' }, { status: 'done', job_id: 'job-702' }],
    ['different content', { content: 'a' }, { content: 'b' }],
    ['listed entities keep their ids', { orders: [{ id: 'A-1' }, { id: 'A-2' }] }, { orders: [{ id: 'B-1' }, { id: 'B-2' }] }],
    ['listed entities keep created_at', { items: [{ created_at: '1' }] }, { items: [{ created_at: '2' }] }],
    ['a bare date is data, not a timestamp', { due: 'due 2026-11-30' }, { due: 'due 2026-12-01' }],
    ['look-alike keys are data', { paid: 1, valid: true, format: 'a', counts: 1 }, { paid: 2, valid: true, format: 'a', counts: 1 }],
    ['an absent id versus a present one', { job_id: null }, { job_id: 'job-1' }],
    ['objects under volatile keys are data (a receipt object)', { receipt: { total: 10 } }, { receipt: { total: 12 } }],
    ['a /tmp path that is not a per-run directory', { out: '/tmp/build/a' }, { out: '/tmp/build/b' }],
  ];
  it.each(different)('different hash: %s', (_name, a, b) => {
    expect(resultHash(a)).not.toBe(resultHash(b));
  });

  it('masking keeps the key and puts a fixed marker in its place', () => {
    expect(resultHash({ job_id: 'job-9', status: 'pending' })).toBe(hashValue({ job_id: VOLATILE_MARKER, status: 'pending' }));
    expect(resultHash({ job_id: 'job-9', status: 'pending' })).not.toBe(hashValue({ status: 'pending' }));
  });

  it('returns the plain hash when nothing is volatile, and never mutates the result', () => {
    const r = { hits: [{ url: 'https://x/y', title: 'T' }], total: 1 };
    expect(resultHash(r)).toBe(hashValue(r));
    const withId = { id: 'x', nested: { id: 'y' } };
    resultHash(withId);
    expect(withId).toEqual({ id: 'x', nested: { id: 'y' } });
  });

  it('volatileKeys adds keys at any depth, in any spelling; maskVolatile: false disables the defaults', () => {
    const opts = { volatileKeys: ['session_token'] };
    expect(resultHash({ rows: [{ sessionToken: 'a', v: 1 }] }, opts)).toBe(resultHash({ rows: [{ sessionToken: 'b', v: 1 }] }, opts));
    expect(resultHash({ sessionToken: 'a' })).not.toBe(resultHash({ sessionToken: 'b' }));
    const off = { maskVolatile: false };
    expect(resultHash({ job_id: '1' }, off)).not.toBe(resultHash({ job_id: '2' }, off));
    expect(resultHash({ log: '2026-11-30T01:02:03Z' }, off)).not.toBe(resultHash({ log: '2026-11-30T01:02:04Z' }, off));
    expect(resultHash({ job_id: '1', t: 'a' }, { maskVolatile: false, volatileKeys: ['t'] })).toBe(resultHash({ job_id: '1', t: 'b' }, { maskVolatile: false, volatileKeys: ['t'] }));
  });

  it('the key list is a documented constant', () => {
    expect(VOLATILE_KEYS).toEqual(expect.arrayContaining(['uuid', 'request_id', 'receipt', 'receipt_handle', 'etag', 'timestamp', 'ts', 'time', 'date', 'duration', 'elapsed', 'took', 'latency', 'pid']));
    expect(Object.isFrozen(VOLATILE_KEYS)).toBe(true);
  });

  it('cyclic and hostile results hash without throwing', () => {
    const r: Record<string, unknown> = { job_id: 'x' };
    r.self = r;
    expect(resultHash(r)).toMatch(/^[0-9a-f]{16}$/);
    const hostile = Object.defineProperty({}, 'x', {
      enumerable: true,
      get() {
        throw new Error('no');
      },
    });
    expect(resultHash(hostile)).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('maskVolatileText', () => {
  it.each([
    ['at 2026-11-30T01:02:03Z', 'at <timestamp>'],
    ['at 2026-11-30 01:02', 'at <timestamp>'],
    ['at 2026-11-30T01:02:03,5+0530.', 'at <timestamp>.'],
    ['id 123e4567-e89b-12d3-a456-426614174000 ok', 'id <uuid> ok'],
    ['/tmp/tmp.AbCdEf1234/x and /private/tmp/tmpq1w2e3r4', '<tmpdir>/x and <tmpdir>'],
    ['on 2026-11-30 only', 'on 2026-11-30 only'],
    ['see https://a.b/c-d-e at 2026-11-30T01:02:03Z', 'see https://a.b/c-d-e at <timestamp>'],
    ['2026-11-30T01:02', '<timestamp>'],
    ['a-b-c-d-e then 123e4567-e89b-12d3-a456-426614174000', 'a-b-c-d-e then <uuid>'],
    ['times 12:30 and 2026-11-30 12:30:00 and 1:2', 'times 12:30 and <timestamp> and 1:2'],
    ['short', 'short'],
    ['see [1] and [2] in the list', 'see [1] and [2] in the list'],
    ['Cell In[7], line 1 and Out [12]', 'Cell In[<n>], line 1 and Out[<n>]'],
    // Prose without digits: only a labelled id is masked, in any case and spelling of its label.
    ['batch span exporter queue', 'batch span exporter queue'],
    ['span id abcdefgh and trace-ID: XyZabcde', 'span id <id> and trace-ID: <id>'],
    ['see Request_Id=abcdefg', 'see Request_Id=<id>'],
    ['correlationid #abc-def-ghi in process', 'correlationid #<id> in process'],
    // Prose with digits: each labelled pattern masks what it finds, and only that.
    ['3 results in 2 folders, process ok', '3 results in 2 folders, process ok'],
    ['restarted (pid 41117); Done in 12s; request id: abc123def; trace 0604cd31ab', 'restarted (pid <pid>); Done in <duration>; request id: <id>; trace <id>'],
  ])('%s', (input, expected) => {
    expect(maskVolatileText(input)).toBe(expected);
  });
});

describe('errorHash', () => {
  it('masks volatile parts of messages', () => {
    expect(errorHash('TimeoutError', 'timed out after 30s (pid 4412) at 2026-11-30T01:02:03Z')).toBe(
      errorHash('TimeoutError', 'timed out after 12.5s (pid 98) at 2026-11-30T07:00:00Z'),
    );
    expect(errorHash('Error', 'object 1a2b3c4d5e6f7a8b9c0d not found')).toBe(errorHash('Error', 'object 9f8e7d6c5b4a39281706 not found'));
    expect(errorHash('Error', 'request 123e4567-e89b-12d3-a456-426614174000 failed')).toBe(errorHash('Error', 'request 00000000-0000-4000-8000-000000000000 failed'));
    expect(errorHash('Error', ' permission denied ')).toBe(errorHash('Error', 'permission denied'));
    // A charge minted per attempt, in a decline that is otherwise the same.
    expect(errorHash('CardError', 'Your card has insufficient funds. charge=ch_3QKJiM7B0dh6lMy72evKlwzj')).toBe(
      errorHash('CardError', 'Your card has insufficient funds. charge=ch_3QKTxYyWIpooyWIMMrds8NNi'),
    );
  });

  it('keeps what tells failures apart', () => {
    expect(errorHash('HTTPError', 'HTTP 429 Too Many Requests')).not.toBe(errorHash('HTTPError', 'HTTP 503 Service Unavailable'));
    expect(errorHash('SyntaxError', 'line 3')).not.toBe(errorHash('SyntaxError', 'line 4'));
    expect(errorHash('ENOENT', 'no such file a.txt')).not.toBe(errorHash('ENOENT', 'no such file b.txt'));
    expect(errorHash('TypeError', 'x')).not.toBe(errorHash('RangeError', 'x'));
    expect(errorHash(undefined, 'x')).not.toBe(errorHash('x', undefined));
    expect(errorHash('Error', 'connect ECONNREFUSED 127.0.0.1:5432')).not.toBe(errorHash('Error', 'connect ECONNREFUSED 127.0.0.1:6379'));
    // Long names without digits are words, not minted ids.
    expect(errorHash('Error', 'unknown field customer_reference_number')).not.toBe(errorHash('Error', 'unknown field billing_address_country'));
  });

  it('is not the hash of an ordinary result', () => {
    expect(errorHash('TypeError', 'x')).not.toBe(hashValue(['TypeError', 'x']));
    expect(errorHash(undefined, undefined)).toMatch(/^[0-9a-f]{16}$/);
  });

  it('maskErrorMessage', () => {
    expect(maskErrorMessage('took 1500ms, then 2 seconds; pid=77; 0xdeadbeef')).toBe('took <duration>, then <duration>; pid=<pid>; <hex>');
    expect(maskErrorMessage('5 secrets in 10 users')).toBe('5 secrets in 10 users');
  });

  it('maskErrorMessage: a minted token is a whole run of 16+ token characters with 4 letters and 2 digits', () => {
    expect(maskErrorMessage('charge ch_3QKa81Fz2rT0pLm5 declined')).toBe('charge <id> declined');
    expect(maskErrorMessage('attempt a-b_c-d1e2fghijklmno failed')).toBe('attempt <id> failed');
    // One digit, or a run cut short of 16 by a character outside the token: kept.
    expect(maskErrorMessage('abcdefghijklmnopq1 failed')).toBe('abcdefghijklmnopq1 failed');
    expect(maskErrorMessage('abcdefg12.hijklmnop failed')).toBe('abcdefg12.hijklmnop failed');
    // No digit at all: nothing of the error patterns applies.
    expect(maskErrorMessage('Permission denied: a_very_long_identifier_name')).toBe('Permission denied: a_very_long_identifier_name');
  });

  it('bounded on huge messages', () => {
    const huge = 'failed at 2026-11-30T01:02:03Z '.repeat(400_000);
    expect(errorHash('E', huge)).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('resultHash masks echoes of masked identifiers', () => {
  const pipeline = (id: number, extra: Record<string, unknown> = {}) => ({
    id,
    status: 'pending',
    ref: 'fix/flaky-checkout-test',
    web_url: `https://ci.example.com/acme/shop/-/pipelines/${id}`,
    ...extra,
  });

  it('a fresh pipeline id and the URL that ends in it', () => {
    expect(resultHash(pipeline(1880412))).toBe(resultHash(pipeline(1880415)));
    expect(resultHash(pipeline(1880412))).toBe(hashValue({ id: VOLATILE_MARKER, status: 'pending', ref: 'fix/flaky-checkout-test', web_url: 'https://ci.example.com/acme/shop/-/pipelines/<id>' }));
  });

  it('echoes before the id in key order, nested ids, *_id keys, string ids, any number of echoes', () => {
    const a = { href: '/jobs/job-77aa/log', job: { job_id: 'job-77aa', note: 'queued job-77aa (job-77aa)' } };
    const b = { href: '/jobs/job-91zz/log', job: { job_id: 'job-91zz', note: 'queued job-91zz (job-91zz)' } };
    expect(resultHash(a)).toBe(resultHash(b));
  });

  it('extra volatile keys of id form propagate too, also with the defaults off', () => {
    const opts = { maskVolatile: false, volatileKeys: ['session_id'] };
    expect(resultHash({ session_id: 'sess-1234', msg: 'opened sess-1234' }, opts)).toBe(resultHash({ session_id: 'sess-9876', msg: 'opened sess-9876' }, opts));
  });

  const different: [string, unknown, unknown][] = [
    ['other content next to the echoed id', pipeline(1880412, { note: 'lint failed' }), pipeline(1880415, { note: 'tests failed' })],
    ['only whole tokens: a longer number that contains the id stays', { id: 4411, out: 'port 44110' }, { id: 4412, out: 'port 44111' }],
    ['ids shorter than four characters are not looked for (counts, pages)', { id: 7, out: 'page 7 of 9' }, { id: 8, out: 'page 8 of 9' }],
    ['ids inside arrays are data and do not propagate', { items: [{ id: 'ord-1001', label: 'ord-1001' }] }, { items: [{ id: 'ord-1002', label: 'ord-1002' }] }],
    ['an echo of one id does not hide a different id elsewhere', { id: 'job-5555', see: 'job-5555 after job-1234' }, { id: 'job-6666', see: 'job-6666 after job-4321' }],
  ];
  it.each(different)('different hash: %s', (_name, a, b) => {
    expect(resultHash(a)).not.toBe(resultHash(b));
  });

  it('the longer of two overlapping ids is masked whole, whatever the member order', () => {
    const one = { id: '1234', job_id: 'job-1234', text: 'job-1234 and 1234' };
    const two = { text: 'job-1234 and 1234', job_id: 'job-1234', id: '1234' };
    expect(resultHash(one)).toBe(resultHash(two));
    expect(resultHash(one)).toBe(hashValue({ id: VOLATILE_MARKER, job_id: VOLATILE_MARKER, text: '<id> and <id>' }));
  });

  it('a result too big to search is walked again and still masked', () => {
    const big = (id: number) => ({ id, rows: Array.from({ length: 200 }, (_, i) => `row ${i} of run ${id}`) });
    expect(resultHash(big(55501), { maxBytes: 256 })).toBe(resultHash(big(55502), { maxBytes: 256 }));
    expect(resultHash(big(55501), { maxBytes: 256 })).not.toBe(resultHash({ ...big(55501), extra: 1 }, { maxBytes: 256 }));
  });
});

describe('resultHash masks measured durations in text', () => {
  const pytest = (t: string, counts = '1 failed, 7 passed') => ({
    exit_code: 1,
    stdout: `F.......\nFAILED tests/test_checkout.py::test_applies_coupon_once - AssertionError\n${counts} in ${t}`,
  });

  it('a re-run whose only difference is the timing line', () => {
    expect(resultHash(pytest('1.43s'))).toBe(resultHash(pytest('1.86s')));
  });

  it.each([
    ['jest', 'Tests: 1 failed\nTime:        54.38 s', 'Tests: 1 failed\nTime:        12.07 s'],
    ['ms', 'took 120ms', 'took 95ms'],
    ['go test', '--- FAIL: TestX (0.00s)\nFAIL\tpkg\t0.012s', '--- FAIL: TestX (0.01s)\nFAIL\tpkg\t0.020s'],
    ['µs, ns, long units', 'p50 15 µs, p99 3ns, total 40 milliseconds', 'p50 9 µs, p99 7ns, total 12 milliseconds'],
    ['seconds spelled out', 'finished in 2.5 seconds', 'finished in 3.75 seconds'],
  ])('same hash: %s', (_name, a, b) => {
    expect(resultHash({ out: a })).toBe(resultHash({ out: b }));
  });

  it.each([
    ['counts stay significant', pytest('1.43s', '1 failed, 7 passed'), pytest('1.43s', '2 failed, 6 passed')],
    ['whole seconds are state (countdowns, ETAs)', { out: 'deploy finishes in 120s' }, { out: 'deploy finishes in 60s' }],
    ['numbers glued to words are not durations', { out: 'v1.2s' }, { out: 'v1.3s' }],
    ['"us" after a space is the word', { out: 'send 2 us' }, { out: 'send 3 us' }],
    ['sizes and versions', { out: 'node 20.11 ships 512 mb' }, { out: 'node 20.12 ships 512 mb' }],
  ] as [string, unknown, unknown][])('different hash: %s', (_name, a, b) => {
    expect(resultHash(a)).not.toBe(resultHash(b));
  });

  it.each([
    ['1 failed, 7 passed in 1.43s', '1 failed, 7 passed in <duration>'],
    ['Time: 54.38 s', 'Time: <duration>'],
    ['took 120ms.', 'took <duration>.'],
    ['(0.00s)', '(<duration>)'],
    ['12us', '<duration>'],
    ['retry in 30s', 'retry in 30s'],
    ['7 passed', '7 passed'],
    ['1.5sq', '1.5sq'],
    ['a1.5s', 'a1.5s'],
  ])('maskVolatileText(%j)', (input, expected) => {
    expect(maskVolatileText(input)).toBe(expected);
  });
});
