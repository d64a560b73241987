import { describe, expect, it } from 'vitest';
import type { Trajectory } from '../../../src/eval/corpus.js';
import { scoreCase, summarise, type CaseRun, type CaseScore } from '../../../src/eval/score.js';

/** A trajectory of `steps` identical lookups; only the label and expectations matter to scoring. */
function trajectory(
  id: string,
  label: 'normal' | 'loop',
  expect: { onset?: number; detectBy?: number; breakBy?: number } = {},
  steps = 20,
): Trajectory {
  return {
    id,
    label,
    title: id,
    steps: Array.from({ length: steps }, () => ({
      tool: 'query_order',
      args: { order_id: 'A-1' },
      result: { status: 'not_found' },
      hasResult: true,
      t: undefined,
      durationMs: undefined,
      status: 'empty' as const,
      error: undefined,
    })),
    onset: expect.onset,
    detectBy: expect.detectBy,
    breakBy: expect.breakBy,
  };
}

function runOf(firstWarning: number | null, firstCritical: number | null = null, firstBreak: number | null = null, detectors: string[] = []): CaseRun {
  return { firstWarning, firstCritical, firstBreak, detectors };
}

const quiet = runOf(null);

describe('scoreCase', () => {
  it('a normal run with no verdict is a true negative', () => {
    const s = scoreCase(trajectory('n', 'normal'), quiet);
    expect(s).toEqual({ id: 'n', label: 'normal', firstWarning: null, firstCritical: null, firstBreak: null, detectors: [], verdict: 'tn', late: false, missedBreak: false });
  });

  it('a normal run with a warning is a false positive, never late nor a missed break', () => {
    const s = scoreCase(trajectory('n', 'normal'), runOf(3, null, null, ['no-progress']));
    expect(s.verdict).toBe('fp');
    expect([s.late, s.missedBreak]).toEqual([false, false]);
    expect(s.detectors).toEqual(['no-progress']);
  });

  it('a normal run that was stopped is a false positive too (a false termination in the summary)', () => {
    const s = scoreCase(trajectory('n', 'normal'), runOf(3, 5, 8, ['no-progress']));
    expect(s.verdict).toBe('fp');
    expect(s.firstBreak).toBe(8);
  });

  it('a loop warned by detectBy is a true positive, on time', () => {
    const t = trajectory('l', 'loop', { onset: 1, detectBy: 3 });
    expect(scoreCase(t, runOf(2))).toMatchObject({ verdict: 'tp', late: false, missedBreak: false });
    // detectBy is inclusive: a warning at that very step is on time.
    expect(scoreCase(t, runOf(3))).toMatchObject({ verdict: 'tp', late: false });
  });

  it('a loop first warned after detectBy is a late true positive', () => {
    const s = scoreCase(trajectory('l', 'loop', { onset: 1, detectBy: 3 }), runOf(4, 6, 9));
    expect(s).toMatchObject({ verdict: 'tp', late: true, missedBreak: false });
  });

  it('only the first warning decides lateness, not critical or break', () => {
    const s = scoreCase(trajectory('l', 'loop', { onset: 1, detectBy: 3 }), runOf(3, 15, 19));
    expect(s.late).toBe(false);
  });

  it('a loop with no warning is a false negative, not also late', () => {
    const s = scoreCase(trajectory('l', 'loop', { onset: 2, detectBy: 8 }), quiet);
    expect(s).toMatchObject({ verdict: 'fn', late: false, missedBreak: false });
  });

  it('a loop with breakBy must be stopped by then', () => {
    const t = trajectory('l', 'loop', { onset: 1, detectBy: 3, breakBy: 12 });
    expect(scoreCase(t, runOf(3, 5, 12)).missedBreak).toBe(false);
    expect(scoreCase(t, runOf(3, 5, 8)).missedBreak).toBe(false);
    expect(scoreCase(t, runOf(3, 5, 13)).missedBreak).toBe(true);
    expect(scoreCase(t, runOf(3, 5, null)).missedBreak).toBe(true);
  });

  it('a missed loop with breakBy is both a false negative and a missed break', () => {
    const s = scoreCase(trajectory('l', 'loop', { onset: 1, detectBy: 3, breakBy: 12 }), quiet);
    expect(s).toMatchObject({ verdict: 'fn', late: false, missedBreak: true });
  });

  it('a loop without breakBy is never a missed break', () => {
    const s = scoreCase(trajectory('l', 'loop', { onset: 1, detectBy: 3 }), runOf(2, 4, null));
    expect(s.missedBreak).toBe(false);
  });

  it('a loop without detectBy (only possible outside the parser) is never late', () => {
    const s = scoreCase(trajectory('l', 'loop', {}), runOf(19));
    expect(s).toMatchObject({ verdict: 'tp', late: false });
  });

  it('keeps the run as it was, with id and label', () => {
    const run = runOf(4, 6, 9, ['cycle', 'repeat']);
    const s = scoreCase(trajectory('abc', 'loop', { onset: 1, detectBy: 6 }), run);
    expect(s).toMatchObject({ id: 'abc', label: 'loop', ...run });
  });
});

function scored(pairs: Array<[Trajectory, CaseRun]>): { ts: Trajectory[]; scores: CaseScore[] } {
  return { ts: pairs.map(([t]) => t), scores: pairs.map(([t, r]) => scoreCase(t, r)) };
}

describe('summarise', () => {
  it('counts verdicts, false terminations, late detections and missed breaks', () => {
    const { ts, scores } = scored([
      [trajectory('tn', 'normal'), quiet],
      [trajectory('fp', 'normal'), runOf(4)],
      [trajectory('fp-stopped', 'normal'), runOf(4, 6, 9)],
      [trajectory('tp', 'loop', { onset: 1, detectBy: 3, breakBy: 12 }), runOf(3, 5, 8)],
      [trajectory('tp-late', 'loop', { onset: 2, detectBy: 4 }), runOf(7)],
      [trajectory('tp-missed-break', 'loop', { onset: 1, detectBy: 3, breakBy: 10 }), runOf(3, 5, null)],
      [trajectory('fn', 'loop', { onset: 1, detectBy: 3, breakBy: 10 }), quiet],
    ]);
    const s = summarise(ts, scores);
    expect(s).toMatchObject({ cases: 7, tp: 3, fp: 2, tn: 1, fn: 1, falseTerminations: 1, late: 1, missedBreaks: 2 });
    expect(s.recall).toBeCloseTo(3 / 4, 12);
    expect(s.falsePositiveRate).toBeCloseTo(2 / 3, 12);
    // Delays from onset to the first warning over true positives: 3-1, 7-2, 3-1.
    expect(s.meanStepsToDetect).toBeCloseTo((2 + 5 + 2) / 3, 12);
  });

  it('a loop that was stopped is not a false termination', () => {
    const { ts, scores } = scored([[trajectory('tp', 'loop', { onset: 1, detectBy: 3 }), runOf(3, 5, 8)]]);
    expect(summarise(ts, scores).falseTerminations).toBe(0);
  });

  it('measures delay from step 1 when a loop has no onset', () => {
    const { ts, scores } = scored([[trajectory('tp', 'loop', { detectBy: 9 }), runOf(5)]]);
    expect(summarise(ts, scores).meanStepsToDetect).toBe(4);
  });

  it('a warning at the onset step is detected in 0 steps', () => {
    const { ts, scores } = scored([[trajectory('tp', 'loop', { onset: 6, detectBy: 9 }), runOf(6)]]);
    expect(summarise(ts, scores).meanStepsToDetect).toBe(0);
  });

  it('recall and meanStepsToDetect are null without loops; the false-positive rate is defined', () => {
    const { ts, scores } = scored([
      [trajectory('a', 'normal'), quiet],
      [trajectory('b', 'normal'), runOf(2)],
    ]);
    const s = summarise(ts, scores);
    expect(s.recall).toBeNull();
    expect(s.meanStepsToDetect).toBeNull();
    expect(s.falsePositiveRate).toBe(0.5);
  });

  it('the false-positive rate is null without normal cases', () => {
    const { ts, scores } = scored([[trajectory('l', 'loop', { onset: 1, detectBy: 3 }), runOf(3)]]);
    const s = summarise(ts, scores);
    expect(s.falsePositiveRate).toBeNull();
    expect(s.recall).toBe(1);
    expect(s.meanStepsToDetect).toBe(2);
  });

  it('meanStepsToDetect is null when every loop was missed, and recall is 0', () => {
    const { ts, scores } = scored([
      [trajectory('l1', 'loop', { onset: 1, detectBy: 3 }), quiet],
      [trajectory('l2', 'loop', { onset: 2, detectBy: 8 }), quiet],
    ]);
    const s = summarise(ts, scores);
    expect(s.recall).toBe(0);
    expect(s.meanStepsToDetect).toBeNull();
  });

  it('an empty corpus gives zero counts and null ratios', () => {
    expect(summarise([], [])).toEqual({
      cases: 0,
      tp: 0,
      fp: 0,
      tn: 0,
      fn: 0,
      falseTerminations: 0,
      late: 0,
      missedBreaks: 0,
      recall: null,
      falsePositiveRate: null,
      meanStepsToDetect: null,
    });
  });

  it('has exactly the summary keys of DESIGN §6', () => {
    const { ts, scores } = scored([[trajectory('n', 'normal'), quiet]]);
    expect(Object.keys(summarise(ts, scores)).sort()).toEqual(
      ['cases', 'tp', 'fp', 'tn', 'fn', 'falseTerminations', 'late', 'missedBreaks', 'recall', 'falsePositiveRate', 'meanStepsToDetect'].sort(),
    );
  });
});

describe('scoring on the exit reason', () => {
  it('adds exitReason and wrongReason only to a case that expects a reason, and wrongReasons only to such a summary', () => {
    const plain = trajectory('p', 'normal');
    const expecting = { ...trajectory('r', 'loop'), detectBy: 3, reason: 'truncation' };
    const right = scoreCase(expecting, runOf(2, 3, 3, ['truncation']), 'truncation');
    const wrong = scoreCase(expecting, runOf(2, 3, 3, ['truncation']), 'loop_break');
    expect(right).toMatchObject({ verdict: 'tp', exitReason: 'truncation', wrongReason: false });
    expect(wrong).toMatchObject({ verdict: 'tp', exitReason: 'loop_break', wrongReason: true });
    const quietScore = scoreCase(plain, runOf(null), 'budget');
    expect('exitReason' in quietScore || 'wrongReason' in quietScore).toBe(false);
    expect('wrongReasons' in summarise([plain], [quietScore])).toBe(false);
    expect(summarise([plain, expecting, expecting], [quietScore, right, wrong]).wrongReasons).toBe(1);
  });
});
