import type { Trajectory } from './corpus.js';

/** What replaying one trajectory produced (steps are 1-based; null when never reached). */
export interface CaseRun {
  firstWarning: number | null;
  firstCritical: number | null;
  firstBreak: number | null;
  detectors: string[];
}

export interface CaseScore extends CaseRun {
  id: string;
  label: 'normal' | 'loop';
  verdict: 'tp' | 'fp' | 'tn' | 'fn';
  late: boolean;
  missedBreak: boolean;
  /** Only for a trajectory with `expect.reason`: why the replayed run ended, and whether that is not the reason expected. */
  exitReason?: string;
  wrongReason?: boolean;
}

export interface Summary {
  cases: number;
  tp: number;
  fp: number;
  tn: number;
  fn: number;
  falseTerminations: number;
  late: number;
  missedBreaks: number;
  recall: number | null;
  falsePositiveRate: number | null;
  meanStepsToDetect: number | null;
  /** Only when some trajectory has `expect.reason`: those whose run ended for another reason. */
  wrongReasons?: number;
}

/**
 * Scores one case as the benchmark README says; a trajectory with
 * `expect.reason` is also scored on why its replayed run ended (`exitReason`).
 */
export function scoreCase(t: Trajectory, run: CaseRun, exitReason = 'completed'): CaseScore {
  const reason = t.reason === undefined ? {} : { exitReason, wrongReason: exitReason !== t.reason };
  const flagged = run.firstWarning !== null;
  if (t.label === 'normal') {
    return { id: t.id, label: t.label, ...run, verdict: flagged ? 'fp' : 'tn', late: false, missedBreak: false, ...reason };
  }
  const late = flagged && t.detectBy !== undefined && run.firstWarning! > t.detectBy;
  const missedBreak = t.breakBy !== undefined && (run.firstBreak === null || run.firstBreak > t.breakBy);
  return { id: t.id, label: t.label, ...run, verdict: flagged ? 'tp' : 'fn', late, missedBreak, ...reason };
}

function ratio(n: number, d: number): number | null {
  return d === 0 ? null : n / d;
}

export function summarise(trajectories: Trajectory[], scores: CaseScore[]): Summary {
  const count = (v: CaseScore['verdict']) => scores.filter((s) => s.verdict === v).length;
  const tp = count('tp');
  const fp = count('fp');
  const tn = count('tn');
  const fn = count('fn');
  const delays = scores
    .map((s, i) => (s.verdict === 'tp' ? s.firstWarning! - (trajectories[i]!.onset ?? 1) : null))
    .filter((d): d is number => d !== null);
  return {
    cases: scores.length,
    tp,
    fp,
    tn,
    fn,
    falseTerminations: scores.filter((s) => s.label === 'normal' && s.firstBreak !== null).length,
    late: scores.filter((s) => s.late).length,
    missedBreaks: scores.filter((s) => s.missedBreak).length,
    recall: ratio(tp, tp + fn),
    falsePositiveRate: ratio(fp, fp + tn),
    meanStepsToDetect: delays.length === 0 ? null : delays.reduce((a, b) => a + b, 0) / delays.length,
    ...(trajectories.some((t) => t.reason !== undefined) ? { wrongReasons: scores.filter((s) => s.wrongReason === true).length } : {}),
  };
}
