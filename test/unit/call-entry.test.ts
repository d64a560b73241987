import { describe, expect, it } from 'vitest';
import { CallEntries, type CallEnd, type CallFacts, type RunLookup } from '../../src/call-entry.js';
import type { Continuation } from '../../src/detectors/index.js';
import { argsShapeHash, argsWordSignature, errorHash, fingerprintArgs, hashText, pendingAnswerShape, resultDigest, subjectShapeHash } from '../../src/fingerprint/index.js';
import { itemSetHash } from '../../src/fingerprint/item-set.js';
import { InternalErrors } from '../../src/internal-errors.js';
import { ListedItems } from '../../src/listed-items.js';
import type { Outcome } from '../../src/types.js';

const LONG_ANSWER = 'The refund policy allows returns within thirty days of delivery, with the receipt.';

function builder(repeats = false, subjectRule: RunLookup['subjectRule'] = () => undefined, openChecks = true, foundNothing = false, gateOn = true, answeredOther = false) {
  const caught: unknown[] = [];
  const listed = new ListedItems();
  let handles: readonly string[] = [];
  const lookup: RunLookup = {
    handedHandles: () => handles,
    noteHandles: (_run, h) => {
      handles = h;
    },
    repeatsLastAnswer: () => repeats,
    answeredOtherArgs: () => answeredOther,
    subjectRule,
    hasOpenChecks: () => openChecks,
    foundNothingLately: () => foundNothing,
    listedItems: () => listed,
    gateOn,
  };
  const entries = new CallEntries(lookup, () => 5_000, new InternalErrors((e) => caught.push(e)));
  return { entries, caught };
}

function facts(args: unknown, extra: Partial<CallFacts> = {}): CallFacts {
  const fp = fingerprintArgs(args);
  return { tool: 't', ...fp, argsWords: undefined, hasArgs: true, args, startMs: 1_000, endMs: 2_000, shapeHash: undefined, blocked: false, fingerprint: undefined, ...extra };
}

const returned = (result: unknown, outcome?: Outcome): CallEnd => ({ kind: 'returned', result, outcome });

describe('CallEntries.build', () => {
  it('decides the outcome: declared by the tool, else the user classifier, else the built-in rules', () => {
    const { entries } = builder();
    expect(entries.build('r', facts({}), returned([], 'pending')).outcome).toBe('pending');
    expect(entries.build('r', facts({}), returned([]), () => 'error').outcome).toBe('error');
    expect(entries.build('r', facts({}), returned([]), () => undefined).outcome).toBe('empty');
    expect(entries.build('r', facts({}), returned([])).outcome).toBe('empty');
  });

  it('reports a classifier that throws and lets the built-in rules decide', () => {
    const { entries, caught } = builder();
    const bug = new Error('classifier bug');
    const entry = entries.build('r', facts({}), returned([]), () => {
      throw bug;
    });
    expect(entry.outcome).toBe('empty');
    expect(caught).toEqual([bug]);
  });

  it('gives empty answers the digit-folded shape, so guessed ids share it', () => {
    const { entries } = builder();
    const a = entries.build('r', facts({ id: 'ord-1' }), returned([]));
    const b = entries.build('r', facts({ id: 'ord-2' }), returned([]));
    expect(a.shapeHash).toBe(argsShapeHash({ id: 'ord-1' }));
    expect(a.shapeHash).toBe(b.shapeHash);
    expect(entries.build('r', facts({ id: 'ord-1' }, { shapeHash: 'f'.repeat(16) }), returned([])).shapeHash).toBe('f'.repeat(16));
  });

  it('gives an informative answer the subject shape only when it repeats the last answer of the tool', () => {
    expect(builder(false).entries.build('r', facts({ q: 'refunds' }), returned(LONG_ANSWER)).shapeHash).toBeUndefined();
    const entry = builder(true).entries.build('r', facts({ q: 'refunds' }), returned(LONG_ANSWER));
    expect(entry).toMatchObject({ informative: true, outcome: 'ok', resultHash: resultDigest(LONG_ANSWER).hash, shapeHash: subjectShapeHash({ q: 'refunds' }) });
  });

  it('reads a short answer as informative when it states more than the call said, unless the arguments reached it hashed', () => {
    const { entries } = builder();
    const action = { action: 'cool lettuce 1 with fridge 1' };
    const answer = { observation: 'Nothing happens.', won: false };
    expect(entries.build('r', facts(action), returned(answer)).informative).toBe(true);
    expect(entries.build('r', facts({ direction: 'down', amount: 'page' }, { tool: 'scroll' }), returned('Scrolled down one page.')).informative).toBe(false);
    // Hashed by the span's maker: no argument text to compare with, so the length test decides.
    expect(entries.build('r', facts(action, { argsText: undefined }), returned(answer)).informative).toBe(false);
    // No arguments at all: the tool's name is all the call said.
    expect(entries.build('r', facts(undefined, { hasArgs: false, argsText: undefined }), returned(answer)).informative).toBe(true);
  });

  it('marks a call acknowledged in nothing but its own words as the acknowledgement’s subject, as one naming a file', () => {
    const { entries } = builder();
    const update = { entry_id: 'art-1', field: 'title', value: 'Holiday gift guide' };
    expect(entries.build('r', facts(update, { tool: 'cms_update_field' }), returned({ status: 'Entry updated.' })).acknowledgedWork).toBe(true);
    expect(entries.build('r', facts({ summary: 'wants insurance' }, { tool: 'transfer' }), returned('Transfer successful')).acknowledgedWork).toBe(false);
    expect(entries.build('r', facts({ path: 'src/app.ts' }, { tool: 'edit' }), returned({ ok: true })).acknowledgedWork).toBe(true);
  });

  it('marks an answer that is a piece of the call’s own arguments, word for word, as handed back', () => {
    const { entries } = builder();
    const shell = (command: string, result: string) => entries.build('r', facts({ command }, { tool: 'shell' }), returned(result)).echoesArgs;
    expect(shell("echo 'Done again.'", 'Done again.')).toBe(true);
    // Words of the call, but not its text: an acknowledgement in its own words says the work was done.
    expect(entries.build('r', facts({ entry_id: 'art-1', field: 'title' }, { tool: 'cms_update_field' }), returned('Entry updated.')).echoesArgs).toBe(false);
    // Only whole words: the call's words, but cut out of one of them.
    expect(shell("echo 'xdone again'; echo done", 'done again')).toBe(false);
    expect(shell('ls', 'README.md src')).toBe(false);
  });

  it('reads whether a repeated answer names what was asked, and only for a repeated answer', () => {
    const named = { q: 'Refund' };
    expect(builder(false).entries.build('r', facts(named), returned(LONG_ANSWER)).namesSubject).toBe(false);
    expect(builder(true).entries.build('r', facts(named), returned(LONG_ANSWER)).namesSubject).toBe(true);
    expect(builder(true).entries.build('r', facts({ q: 'Invoices' }), returned(LONG_ANSWER)).namesSubject).toBe(false);
  });

  it('reads the name in the arguments changed since the tool\'s previous call, not a value every call repeats', () => {
    const { entries } = builder(true);
    const coverage = { status: 'INACTIVE', plan: 'Aetna Choice POS II', group: 'Harbor Logistics LLC (0841762)' };
    const patient = (member: string, name: string) => facts({ payer: 'aetna', member_id: member, patient_name: name });
    // The tool's first call has nothing to differ from: every named value is read.
    expect(entries.build('r', patient('W277410036', 'Aisha Rahman'), returned(coverage)).namesSubject).toBe(true);
    expect(entries.build('r', patient('W277410044', 'Tomasz Nowak'), returned(coverage)).namesSubject).toBe(false);
  });

  it('records the order-free hash of what a result lists', () => {
    const hits = [{ id: 'a', score: 0.7 }, { id: 'b', score: 0.6 }];
    expect(builder().entries.build('r', facts({ q: 'x' }), returned({ matches: hits })).itemSetHash).toBe(itemSetHash({ matches: hits }));
    expect(builder().entries.build('r', facts({ q: 'x' }), returned(LONG_ANSWER)).itemSetHash).toBe(0);
  });

  it('signs the words of an ask that found nothing, of one told what other arguments were told, and of any ask while one that found nothing is in the window, and of no other', () => {
    const args = { query: 'iPhone 14 news' };
    const words = argsWordSignature(args, undefined);
    expect(words).toMatch(/^[0-9a-f]{32}$/);
    expect(builder().entries.build('r', facts(args), returned([])).argsWords).toBe(words);
    expect(builder().entries.build('r', facts(args), returned(LONG_ANSWER)).argsWords).toBeUndefined();
    expect(builder(false, undefined, true, false, true, true).entries.build('r', facts(args), returned(LONG_ANSWER)).argsWords).toBe(words);
    // A bare acknowledgement, even one other arguments got: no resend to tell.
    expect(builder(false, undefined, true, false, true, true).entries.build('r', facts(args), returned({ ok: true })).argsWords).toBeUndefined();
    expect(builder().entries.build('r', facts(args), returned(['a hit'])).argsWords).toBeUndefined();
    expect(builder(false, undefined, true, true).entries.build('r', facts(args), returned(['a hit'])).argsWords).toBe(words);
    // Signed elsewhere (an SDK in another process): taken as it is.
    expect(builder().entries.build('r', facts(args, { argsWords: 'ab'.repeat(16) }), returned([])).argsWords).toBe('ab'.repeat(16));
  });

  it('gives long arguments told what other arguments were told their digit shape, which their sketch cannot tell: no other call needs it', () => {
    const long = { command: `curl -s 'https://api.billing.example/v1/invoices?status=open&limit=50&page=2' -H 'Accept: application/json'` };
    const resends = builder(false, undefined, true, false, true, true).entries;
    expect(resends.build('r', facts(long), returned(LONG_ANSWER)).digitShapeHash).toBe(argsShapeHash(long));
    expect(builder().entries.build('r', facts(long), returned(LONG_ANSWER)).digitShapeHash).toBeUndefined();
    expect(resends.build('r', facts(long), returned({ ok: true })).digitShapeHash).toBeUndefined();
    expect(resends.build('r', facts({ query: 'iPhone 14 news' }), returned(LONG_ANSWER)).digitShapeHash).toBeUndefined();
  });

  it('marks a lookup, a failure or a repeated answer that swaps in an item an earlier result listed', () => {
    const { entries } = builder();
    const listing = { transactions: [{ reference: 'DEP-118204', amount: 2150 }, { reference: 'DEP-118211', amount: 980 }, { reference: 'DEP-118215', amount: 75 }] };
    entries.build('r', facts({ account: 'op-checking' }, { tool: 'statement' }), returned(listing));
    const find = (reference: string) => entries.build('r', facts({ reference }, { tool: 'ledger_find' }), returned({ entries: [] })).takesListedItem;
    // The first lookup has no earlier one to differ from; each later one takes the next listed deposit.
    expect([find('DEP-118204'), find('DEP-118211'), find('DEP-118215')]).toEqual([false, true, true]);
    // A reference the run was never shown is a guess.
    expect(find('DEP-999999')).toBe(false);
  });

  it('counts a failure as an answer about the listed item only when the failure names it', () => {
    const { entries } = builder();
    entries.build('r', facts({ command: 'describe-volumes' }, { tool: 'aws' }), returned({ stdout: 'vol-0a41c9e27f3b58d10\tvol-0b7d2e91c4a6f3082\tvol-0e13f8a6d92b4c771' }));
    const del = (volume: string, message: string) =>
      entries.build('r', facts({ command: `delete-volume --volume-id ${volume}` }, { tool: 'aws' }), { kind: 'failed', errorType: 'ClientError', message }).takesListedItem;
    expect(del('vol-0a41c9e27f3b58d10', 'VolumeInUse: vol-0a41c9e27f3b58d10 is attached to i-01')).toBe(false);
    expect(del('vol-0b7d2e91c4a6f3082', 'VolumeInUse: vol-0b7d2e91c4a6f3082 is attached to i-02')).toBe(true);
    // The same rejection whatever was asked is the call's own fault.
    expect(del('vol-0e13f8a6d92b4c771', 'Invalid action!')).toBe(false);
  });

  it('hands the engine a conversation turn: the message said, the reply and the arguments; no other call', () => {
    const { entries } = builder();
    const ask = 'Could you share the email address on your account?';
    const turn = entries.build('r', facts({ content: ask }, { tool: 'respond' }), returned('kim.lee4410@example.com')).turn;
    expect(turn).toEqual({ message: ask, reply: 'kim.lee4410@example.com', argsText: JSON.stringify({ content: ask }) });
    expect(entries.build('r', facts({ command: 'grep -rn "timeout" src/' }), returned('src/a.ts:3: timeout')).turn).toBeUndefined();
    expect(entries.build('r', facts({ content: ask }), returned({ reply: 'kim.lee4410@example.com' })).turn).toBeUndefined();
  });

  it('reads whether a pending call names its job', () => {
    const { entries } = builder();
    expect(entries.build('r', facts({ jobId: 'job-8812' }), returned({ status: 'queued' })).namesId).toBe(true);
    expect(entries.build('r', facts({ report: 'sales' }), returned({ status: 'queued' })).namesId).toBe(false);
  });

  it('gives a pending answer read as text its handle-folded shape, and no other answer one', () => {
    const { entries } = builder();
    const queued = (ref: string, outcome: Outcome) => entries.build('r', facts({ report: 'sales' }), returned({ reference: ref, status: 'queued' }, outcome)).pendingShape;
    expect(queued('EXP-20261130-0412', 'pending')).toBe(pendingAnswerShape(resultDigest({ reference: 'EXP-20261130-0413', status: 'queued' }).text));
    expect(queued('EXP-20261130-0412', 'ok')).toBeUndefined();
    expect(entries.build('r', facts({}), { kind: 'hashed', resultHash: 'a'.repeat(16), outcome: 'pending' }).pendingShape).toBeUndefined();
  });

  it('reads a call that passes back the handle a pending answer handed the run through <h>', () => {
    const { entries } = builder();
    const check = (handle: string) => entries.build('r', facts({ statementHandle: handle }), returned({ status: 'running' })).normArgsHash;
    const before = check('01b8f2d1-0603-4f2e');
    expect(before).toBe(fingerprintArgs({ statementHandle: '01b8f2d1-0603-4f2e' }).normArgsHash);
    entries.build('r', facts({ sql: 'select 1' }), returned({ statementHandle: '01b8f2d1-0603-4f2e' }, 'pending'));
    const first = check('01b8f2d1-0603-4f2e');
    entries.build('r', facts({ sql: 'select 1' }), returned({ statementHandle: '01b8f2d2-0603-4f2e' }, 'pending'));
    expect(check('01b8f2d2-0603-4f2e')).toBe(first);
    expect(first).not.toBe(before);
    // A handle no pending answer handed is the call's own.
    expect(check('01b8f2d1-0603-4f2e')).toBe(before);
  });

  it('hashes a failure by its type and message, and takes a hash made elsewhere as it is', () => {
    const { entries } = builder();
    expect(entries.build('r', facts({ a: 1 }), { kind: 'failed', errorType: 'Error', message: 'denied' })).toMatchObject({
      outcome: 'error',
      resultHash: errorHash('Error', 'denied', { a: 1 }),
    });
    expect(entries.build('r', facts({ a: 1 }), { kind: 'hashed', resultHash: 'a'.repeat(16), outcome: 'pending' })).toMatchObject({ outcome: 'pending', resultHash: 'a'.repeat(16) });
  });

  it('records a refused call as the call of the pattern it stands for, or as a call that continues none', () => {
    const { entries } = builder();
    const as: Continuation = {
      match: 'tool', toolId: 0, argsHash: '1'.repeat(16), normArgsHash: '1'.repeat(16), resultHash: '2'.repeat(16), outcome: 'empty',
      shapeHash: '3'.repeat(8) + '0'.repeat(8), informative: false, namesId: true, score: 9,
    };
    expect(entries.build('r', facts({ id: 'ord-9' }), { kind: 'refused', as })).toMatchObject({
      blocked: true, resultHash: as.resultHash, outcome: 'empty', shapeHash: as.shapeHash, namesId: true,
    });
    expect(entries.build('r', facts({ id: 'ord-9' }), { kind: 'refused', as: undefined })).toMatchObject({
      blocked: true, resultHash: hashText('loopguard:not-executed'), outcome: 'ok', shapeHash: undefined,
    });
  });

  it("ends a call that has no end yet by the host's clock", () => {
    const { entries } = builder();
    expect(entries.build('r', facts({}, { endMs: undefined }), returned('x')).endMs).toBe(5_000);
    expect(entries.build('r', facts({}), returned('x')).endMs).toBe(2_000);
  });
});

describe('CallEntries.build: subjects of checks', () => {
  const failed = (message: string): CallEnd => ({ kind: 'failed', errorType: 'Error', message });

  it('records what the call checked, failed or not', () => {
    const { entries } = builder();
    expect(entries.build('r', facts({ command: 'curl -sf localhost:8080/health' }), failed('Connection refused')).subjects).toEqual(['service://localhost:8080']);
    expect(entries.build('r', facts({ command: 'pytest tests/a.py' }), returned('1 passed')).subjects).toEqual(['test://tests/a.py']);
    expect(entries.build('r', facts({ query: 'x' }), returned('y')).subjects).toBeUndefined();
  });

  it('skips the inference for a success when the run has no failed check open: there is nothing to clear', () => {
    const { entries } = builder(false, () => undefined, false);
    expect(entries.build('r', facts({ command: 'pytest tests/a.py' }), returned('1 passed')).subjects).toBeUndefined();
    expect(entries.build('r', facts({ command: 'pytest tests/a.py' }), failed('1 failed')).subjects).toEqual(['test://tests/a.py']);
  });

  it('a failure that only says the thing is not there checks no file or service, but a test run still failed', () => {
    const { entries } = builder();
    expect(entries.build('r', facts({ path: 'cfg.yaml' }), failed("ENOENT: no such file or directory, open 'cfg.yaml'")).subjects).toBeUndefined();
    expect(entries.build('r', facts({ url: 'http://a:1/x' }), returned({ status: 404, body: 'Not Found' })).subjects).toBeUndefined();
    expect(entries.build('r', facts({ command: 'pytest tests/a.py' }), failed('AssertionError: user not found')).subjects).toEqual(['test://tests/a.py']);
  });

  it('reads a shell result\'s nonzero exit code as a failed check and zero as a passed one, leaving the outcome to the loop detectors', () => {
    const { entries } = builder(false, () => undefined, false);
    const pytest = facts({ command: 'python -m pytest tests/test_duration.py -q' });
    const failing = entries.build('r', pytest, returned({ returncode: 1, output: 'F\n1 failed in 0.04s' }, 'ok'));
    expect([failing.outcome, failing.checkOutcome, failing.subjects]).toEqual(['ok', 'error', ['test://tests/test_duration.py']]);
    const passing = builder().entries.build('r', pytest, returned({ returncode: 0, output: '1 passed in 0.02s' }));
    expect([passing.checkOutcome, passing.subjects]).toEqual(['ok', ['test://tests/test_duration.py']]);
    expect(entries.build('r', facts({ command: 'curl -sf http://localhost:8080/health' }), returned({ exit_code: 7, output: 'curl: (7) Failed to connect' })).subjects).toEqual(['service://localhost:8080']);
    // A failure that only says the file is not there checks no file, as a thrown one would.
    expect(entries.build('r', facts({ path: 'cfg.yaml' }), returned({ exit_code: 1, output: 'cfg.yaml: No such file or directory' })).subjects).toBeUndefined();
    expect(entries.build('r', facts({ command: 'ls' }), returned({ output: 'a b' })).checkOutcome).toBeUndefined();
  });

  it('infers nothing with the completion gate off: neither subjects nor an exit code, and the tool\'s rule is never called', () => {
    let ruleCalls = 0;
    const { entries } = builder(false, () => () => (ruleCalls++, ['test://x']), true, false, false);
    const pytest = entries.build('r', facts({ command: 'pytest tests/a.py' }), returned({ returncode: 1, output: '1 failed' }));
    expect([pytest.subjects, pytest.checkOutcome, ruleCalls]).toEqual([undefined, undefined, 0]);
    expect(entries.build('r', facts({ url: 'http://a:1' }), failed('Connection refused')).subjects).toBeUndefined();
    expect(ruleCalls).toBe(0);
  });

  it("uses the tool's own rule, and reports one that throws instead of failing the call", () => {
    const { entries, caught } = builder(false, () => () => {
      throw new Error('bad rule');
    });
    expect(entries.build('r', facts({ url: 'http://a:1' }), returned('ok')).subjects).toBeUndefined();
    expect(caught).toHaveLength(1);
    const ruled = builder(false, () => ({ kind: 'test', arg: 'suite' })).entries;
    expect(ruled.build('r', facts({ suite: 'smoke' }), failed('2 failed')).subjects).toEqual(['test://smoke']);
  });
});
