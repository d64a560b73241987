/**
 * `loopguard eval` end to end: the real CLI entry (and the built bin when it
 * builds) over the shared benchmark corpus and loopguard's own corpus. Checks
 * the JSON contract of DESIGN §6, the acceptance figures, and exit code 2
 * with a message naming line and field for unreadable input.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CommandIO } from '../../src/cli/io.js';
import type { CaseScore, Summary } from '../../src/eval/score.js';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../..');
const sharedCorpus = resolve(repoRoot, '../shared/benchmark/trajectories.jsonl');
const ownCorpus = resolve(repoRoot, 'test/corpus/trajectories.jsonl');
const malformedDir = resolve(repoRoot, 'test/corpus/malformed');
const bin = resolve(repoRoot, 'dist/src/cli/bin.js');

const CASE_KEYS = ['detectors', 'firstBreak', 'firstCritical', 'firstWarning', 'id', 'label', 'late', 'missedBreak', 'verdict'];
const SUMMARY_KEYS = [
  'cases',
  'falsePositiveRate',
  'falseTerminations',
  'fn',
  'fp',
  'late',
  'meanStepsToDetect',
  'missedBreaks',
  'recall',
  'tn',
  'tp',
];

/** The JSON of DESIGN §6; the key lists above pin it independently of these types. */
interface EvalOut {
  cases: CaseScore[];
  summary: Summary;
}

interface CorpusLine {
  id: string;
  label: 'normal' | 'loop';
  steps: unknown[];
  expect?: { reason?: string };
}

function capture(): CommandIO & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (l) => stdout.push(l), err: (l) => stderr.push(l) };
}

async function evalJson(file: string, ...extra: string[]): Promise<{ code: number; result: EvalOut; stderr: string[] }> {
  const io = capture();
  const code = await main(['eval', file, '--json', ...extra], io);
  // --json prints exactly one JSON object, on one line.
  expect(io.stdout).toHaveLength(1);
  return { code, result: JSON.parse(io.stdout[0]!) as EvalOut, stderr: io.stderr };
}

function readCorpus(file: string): CorpusLine[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as CorpusLine);
}

function isStep(v: unknown, steps: number): boolean {
  return v === null || (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= steps);
}

/** The DESIGN §6 contract, key for key, plus the invariants any honest scoring keeps. */
function checkShape(out: EvalOut, corpus: CorpusLine[]): void {
  // Exit-reason scoring adds keys only where a trajectory asks for it (expect.reason): other corpora keep the shape the CI gate parses.
  const reasons = corpus.some((t) => t.expect?.reason !== undefined);
  expect(Object.keys(out).sort()).toEqual(['cases', 'summary']);
  expect(Object.keys(out.summary).sort()).toEqual(reasons ? [...SUMMARY_KEYS, 'wrongReasons'].sort() : SUMMARY_KEYS);
  expect(out.cases.map((c) => c.id)).toEqual(corpus.map((t) => t.id));
  out.cases.forEach((c, i) => {
    const t = corpus[i]!;
    expect(Object.keys(c).sort(), c.id).toEqual(t.expect?.reason === undefined ? CASE_KEYS : [...CASE_KEYS, 'exitReason', 'wrongReason'].sort());
    if (t.expect?.reason !== undefined) expect(c.wrongReason, c.id).toBe(c.exitReason !== t.expect.reason);
    expect(c.label, c.id).toBe(t.label);
    for (const k of ['firstWarning', 'firstCritical', 'firstBreak'] as const) expect(isStep(c[k], t.steps.length), `${c.id}.${k}=${c[k]}`).toBe(true);
    // A stronger level is never reached before a weaker one is: each tier includes the ones below it.
    if (c.firstCritical !== null) expect(c.firstWarning, c.id).not.toBeNull();
    if (c.firstBreak !== null) expect(c.firstCritical ?? c.firstWarning, c.id).not.toBeNull();
    if (c.firstWarning !== null && c.firstBreak !== null) expect(c.firstWarning).toBeLessThanOrEqual(c.firstBreak);
    expect(Array.isArray(c.detectors) && c.detectors.every((d) => typeof d === 'string'), c.id).toBe(true);
    expect(c.detectors.length > 0, `${c.id}: detectors named exactly when a level was reached`).toBe(c.firstWarning !== null);
    const flagged = c.firstWarning !== null;
    expect(c.verdict, c.id).toBe(t.label === 'loop' ? (flagged ? 'tp' : 'fn') : flagged ? 'fp' : 'tn');
    expect(typeof c.late).toBe('boolean');
    expect(typeof c.missedBreak).toBe('boolean');
    if (t.label === 'normal') expect([c.late, c.missedBreak], c.id).toEqual([false, false]);
  });
  const s = out.summary;
  if (reasons) expect(s.wrongReasons).toBe(out.cases.filter((c) => c.wrongReason === true).length);
  const count = (v: CaseScore['verdict']) => out.cases.filter((c) => c.verdict === v).length;
  expect(s.cases).toBe(corpus.length);
  expect([s.tp, s.fp, s.tn, s.fn]).toEqual([count('tp'), count('fp'), count('tn'), count('fn')]);
  expect(s.falseTerminations).toBe(out.cases.filter((c) => c.label === 'normal' && c.firstBreak !== null).length);
  expect(s.late).toBe(out.cases.filter((c) => c.late).length);
  expect(s.missedBreaks).toBe(out.cases.filter((c) => c.missedBreak).length);
  expect(s.recall).toBe(s.tp + s.fn === 0 ? null : s.tp / (s.tp + s.fn));
  expect(s.falsePositiveRate).toBe(s.fp + s.tn === 0 ? null : s.fp / (s.fp + s.tn));
  if (s.tp === 0) expect(s.meanStepsToDetect).toBeNull();
  else expect(typeof s.meanStepsToDetect).toBe('number');
}

/** Every case that misses the bar, named, so a failure says which and why. */
function misses(out: EvalOut): string[] {
  return out.cases.flatMap((c) => {
    const why: string[] = [];
    if (c.verdict === 'fp') why.push(`false positive at step ${c.firstWarning} (${c.detectors.join(',')})`);
    if (c.verdict === 'fn') why.push('missed');
    if (c.label === 'normal' && c.firstBreak !== null) why.push(`false termination at step ${c.firstBreak}`);
    if (c.late) why.push(`late: first warning at step ${c.firstWarning}`);
    if (c.missedBreak) why.push(`missed break (break at ${c.firstBreak ?? 'never'})`);
    return why.length ? [`${c.id}: ${why.join('; ')}`] : [];
  });
}

function expectAcceptance(out: EvalOut): void {
  expect(misses(out)).toEqual([]);
  const { fp, fn, falseTerminations, late, missedBreaks } = out.summary;
  expect({ fp, fn, falseTerminations, late, missedBreaks }).toEqual({ fp: 0, fn: 0, falseTerminations: 0, late: 0, missedBreaks: 0 });
}

describe('loopguard eval --json on the shared benchmark corpus', () => {
  const present = existsSync(sharedCorpus);
  let out: EvalOut;

  beforeAll(async () => {
    if (!present) return;
    const r = await evalJson(sharedCorpus);
    expect(r.code).toBe(0);
    expect(r.stderr).toEqual([]);
    out = r.result;
  });

  it.skipIf(!present)('prints the DESIGN §6 JSON object', () => {
    checkShape(out, readCorpus(sharedCorpus));
  });

  it.skipIf(!present)('meets the acceptance bar: no fp, fn, false termination, late detection or missed break', () => {
    expectAcceptance(out);
    expect(out.summary.recall).toBe(1);
    expect(out.summary.falsePositiveRate).toBe(0);
  });
});

describe("loopguard eval --json on loopguard's own corpus", () => {
  let out: EvalOut;
  const corpus = readCorpus(ownCorpus);

  beforeAll(async () => {
    const r = await evalJson(ownCorpus);
    expect(r.code).toBe(0);
    out = r.result;
  });

  it('holds both labels in realistic proportion', () => {
    const loops = corpus.filter((t) => t.label === 'loop').length;
    expect(corpus.length).toBeGreaterThanOrEqual(30);
    expect(loops).toBeGreaterThanOrEqual(corpus.length * 0.35);
    expect(loops).toBeLessThanOrEqual(corpus.length * 0.65);
  });

  it('prints the DESIGN §6 JSON object', () => {
    checkShape(out, corpus);
  });

  it('meets the acceptance bar: no fp, fn, false termination, late detection or missed break', () => {
    expectAcceptance(out);
  });

  it('gives the same verdicts on a second run in the same process', async () => {
    const again = await evalJson(ownCorpus);
    expect(again.result).toEqual(out);
  });
});

describe('loopguard eval --json on the fp-hunt and domains corpora (legitimate repetition that looks like a loop)', () => {
  for (const name of ['fp-hunt.jsonl', 'domains.jsonl']) {
    it(`meets the acceptance bar on ${name} too`, async () => {
      const file = resolve(repoRoot, 'test/corpus', name);
      const r = await evalJson(file);
      expect(r.code).toBe(0);
      checkShape(r.result, readCorpus(file));
      expectAcceptance(r.result);
    });
  }
});

/** A corpus of ours where every case names the exit reason it expects: at least `minCases`, both labels, `reasons` among them. */
function describeReasonCorpus(name: string, readme: string, minCases: number, reasons: string[]): void {
  describe(`loopguard eval --json on ${name} (test/corpus/${readme})`, () => {
    const file = resolve(repoRoot, 'test/corpus', name);
    const corpus = readCorpus(file);
    let out: EvalOut;

    beforeAll(async () => {
      const r = await evalJson(file);
      expect(r.code).toBe(0);
      out = r.result;
    });

    it(`has at least ${minCases} cases of both labels, each naming the exit reason it expects`, () => {
      expect(corpus.length).toBeGreaterThanOrEqual(minCases);
      expect(new Set(corpus.map((t) => t.label))).toEqual(new Set(['loop', 'normal']));
      expect(corpus.every((t) => t.expect?.reason !== undefined)).toBe(true);
      for (const reason of reasons) expect(corpus.map((t) => t.expect?.reason)).toContain(reason);
    });

    it('has the eval JSON shape, with the exit-reason fields', () => checkShape(out, corpus));

    it('meets the acceptance bar, and every run ends for the reason expected', () => {
      expectAcceptance(out);
      expect(out.cases.filter((c) => c.wrongReason).map((c) => `${c.id}: ended ${c.exitReason}`)).toEqual([]);
      expect(out.summary.wrongReasons).toBe(0);
    });
  });
}

describeReasonCorpus('model-turns.jsonl', 'MODEL-TURNS.md', 20, ['budget', 'truncation', 'completed']);
describeReasonCorpus('model-output.jsonl', 'MODEL-OUTPUT.md', 10, ['loop_break', 'truncation', 'completed']);
describeReasonCorpus('completion-gate.jsonl', 'COMPLETION-GATE.md', 8, ['completed_unverified', 'completed']);

describe('loopguard eval --json on the corpora written to break it and the real runs (known misses are listed in their READMEs)', () => {
  // Every other corpus of ours, the real runs mined from public agent runs included (test/corpus/REAL.md).
  const pinned = new Set(['trajectories.jsonl', 'fp-hunt.jsonl', 'domains.jsonl', 'model-turns.jsonl', 'model-output.jsonl', 'completion-gate.jsonl']);
  const others = readdirSync(resolve(repoRoot, 'test/corpus')).filter((f) => f.endsWith('.jsonl') && !pinned.has(f));
  it('finds the corpora', () => expect(others.length).toBeGreaterThanOrEqual(20));
  for (const name of others) {
    it(`never stops a normal run of ${name}`, async () => {
      const file = resolve(repoRoot, 'test/corpus', name);
      const r = await evalJson(file);
      checkShape(r.result, readCorpus(file));
      expect(r.result.summary.falseTerminations).toBe(0);
    });
  }
});

describe('loopguard eval rejects unreadable input with exit 2', () => {
  const expected: Record<string, { line: number; field: string }> = {
    'bad-json.jsonl': { line: 2, field: '(line)' },
    'bad-model-tokens.jsonl': { line: 2, field: 'steps[1].outputTokens' },
    'bad-budget.jsonl': { line: 1, field: 'budget.outputTokens' },
    'bad-reason.jsonl': { line: 3, field: 'expect.reason' },
    'bad-status.jsonl': { line: 2, field: 'steps[1].status' },
    'duplicate-ids.jsonl': { line: 4, field: 'id' },
    'loop-without-detect-by.jsonl': { line: 2, field: 'expect.detectBy' },
    'missing-id.jsonl': { line: 3, field: 'id' },
    'steps-not-array.jsonl': { line: 2, field: 'steps' },
  };

  it('has a fixture for every rule checked here, and nothing unchecked', () => {
    expect(readdirSync(malformedDir).filter((f) => f.endsWith('.jsonl')).sort()).toEqual(Object.keys(expected).sort());
  });

  for (const [file, { line, field }] of Object.entries(expected)) {
    it(`${file}: names line ${line} and field ${field}`, async () => {
      for (const json of [true, false]) {
        const io = capture();
        const code = await main(['eval', join(malformedDir, file), ...(json ? ['--json'] : [])], io);
        expect(code).toBe(2);
        expect(io.stdout).toEqual([]);
        const message = io.stderr.join('\n');
        expect(message).toContain(file);
        expect(message).toMatch(new RegExp(`\\bline ${line}\\b`));
        expect(message).toContain(`"${field}"`);
      }
    });
  }

  it('a missing file', async () => {
    const io = capture();
    const missing = join(malformedDir, 'no-such-corpus.jsonl');
    expect(await main(['eval', missing, '--json'], io)).toBe(2);
    expect(io.stdout).toEqual([]);
    expect(io.stderr.join('\n')).toContain(missing);
  });

  it('an unknown preset, naming the option and the choices', async () => {
    const io = capture();
    expect(await main(['eval', ownCorpus, '--json', '--preset', 'nope'], io)).toBe(2);
    expect(io.stdout).toEqual([]);
    const message = io.stderr.join('\n');
    expect(message).toContain('preset');
    expect(message).toContain('nope');
    expect(message).toMatch(/balanced/);
  });

  it('a --preset without its value, naming the option', async () => {
    const io = capture();
    expect(await main(['eval', ownCorpus, '--preset'], io)).toBe(2);
    expect(io.stderr.join('\n')).toContain('--preset');
  });

  it('no file at all', async () => {
    const io = capture();
    expect(await main(['eval', '--json'], io)).toBe(2);
    expect(io.stderr.join('\n')).toMatch(/FILE/);
  });
});

/**
 * The built bin, as users run it. Built here from the sources; when other
 * in-progress work keeps the build from succeeding, these checks are skipped
 * (the main() checks above cover the same code).
 */
describe('the built bin: node dist/src/cli/bin.js eval', () => {
  let built = false;
  let buildOutput = '';

  beforeAll(async () => {
    try {
      await run('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: repoRoot, timeout: 300_000 });
      built = existsSync(bin);
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; message: string };
      buildOutput = `${e.stdout ?? ''}${e.stderr ?? ''}` || e.message;
    }
    if (!built) console.warn(`loopguard eval bin checks skipped: the build did not succeed\n${buildOutput.slice(0, 2000)}`);
  }, 320_000);

  it('prints the same JSON as main() for both corpora and exits 0', async (ctx) => {
    if (!built) ctx.skip();
    for (const file of [sharedCorpus, ownCorpus].filter((f) => existsSync(f))) {
      const { stdout, stderr } = await run(process.execPath, [bin, 'eval', file, '--json'], { cwd: repoRoot, timeout: 120_000 });
      expect(stderr).toBe('');
      const lines = stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      const viaMain = await evalJson(file);
      expect(JSON.parse(lines[0]!)).toEqual(viaMain.result);
    }
  }, 240_000);

  it('exits 2 with the line and field for a malformed corpus', async (ctx) => {
    if (!built) ctx.skip();
    const err = await run(process.execPath, [bin, 'eval', join(malformedDir, 'bad-status.jsonl'), '--json'], { cwd: repoRoot }).then(
      () => undefined,
      (e: { code?: number; stdout?: string; stderr?: string }) => e,
    );
    expect(err).toBeDefined();
    expect(err!.code).toBe(2);
    expect(err!.stdout).toBe('');
    expect(err!.stderr).toMatch(/line 2\b/);
    expect(err!.stderr).toContain('"steps[1].status"');
  }, 60_000);

  it('ends quietly when the reader closes the pipe early (`eval … | head -1`)', async (ctx) => {
    if (!built) ctx.skip();
    const child = spawn(process.execPath, [bin, 'eval', ownCorpus], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Read the first line of the table, then close our end as `head -1` would.
    await new Promise<void>((done) => child.stdout.once('data', () => done()));
    child.stdout.destroy();
    const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)));
    expect(stderr).not.toContain('EPIPE');
    expect(code).toBe(0);
  }, 60_000);
});

describe('loopguard eval --json on the shared real agent runs', () => {
  const realCorpus = resolve(repoRoot, '../shared/benchmark/real/real.jsonl');
  it.skipIf(!existsSync(realCorpus))('meets the acceptance bar: at least 15 of 17 loops, at most one false positive, no false termination, at most two late', async () => {
    const r = await evalJson(realCorpus);
    expect(r.code).toBe(0);
    checkShape(r.result, readCorpus(realCorpus));
    const { tp, fp, falseTerminations, late } = r.result.summary;
    expect({ caught: tp >= 15, fewFalsePositives: fp <= 1, falseTerminations, fewLate: late <= 2 }).toEqual({
      caught: true,
      fewFalsePositives: true,
      falseTerminations: 0,
      fewLate: true,
    });
  });
});
