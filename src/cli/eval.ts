import type { Trajectory } from '../eval/corpus.js';
import type { Run } from '../eval/formats/index.js';
import { replayRuns, type Replayed, type Verdict } from '../eval/replay.js';
import { scoreCase, summarise, type CaseRun, type CaseScore, type Summary } from '../eval/score.js';
import { loadDetection, parseReplayArgs, readRunFile } from './replay-args.js';
import type { CommandIO } from './io.js';

/** A run from a format without labels: listed with what was found, never scored. */
interface UnlabelledCase extends CaseRun {
  id: string;
  label: null;
  verdict: null;
  late: false;
  missedBreak: false;
  verdicts: Verdict[];
}

type Case = CaseScore | UnlabelledCase;

function pct(x: number | null): string {
  return x === null ? 'n/a' : `${(x * 100).toFixed(1)}%`;
}

function printTable(io: CommandIO, cases: Case[], summary: Summary): void {
  io.out(`${'id'.padEnd(14)} ${'label'.padEnd(6)} ${'verdict'.padEnd(7)} warn  crit  break  detectors`);
  for (const s of cases) {
    const flags = [s.late ? 'LATE' : '', s.missedBreak ? 'MISSED-BREAK' : '', s.verdict !== null && s.wrongReason ? `ENDED-${s.exitReason}` : ''].filter(Boolean).join(' ');
    const cell = (n: number | null) => String(n ?? '-').padEnd(5);
    io.out(`${s.id.padEnd(14)} ${(s.label ?? '-').padEnd(6)} ${(s.verdict ?? '-').padEnd(7)} ${cell(s.firstWarning)} ${cell(s.firstCritical)} ${cell(s.firstBreak)}  ${s.detectors.join(',') || '-'} ${flags}`.trimEnd());
  }
  io.out('');
  io.out(
    `cases ${summary.cases}  tp ${summary.tp}  fp ${summary.fp}  tn ${summary.tn}  fn ${summary.fn}  ` +
      `false terminations ${summary.falseTerminations}  late ${summary.late}  missed breaks ${summary.missedBreaks}`,
  );
  io.out(
    `recall ${pct(summary.recall)}  false-positive rate ${pct(summary.falsePositiveRate)}  ` +
      `mean steps to detect ${summary.meanStepsToDetect === null ? 'n/a' : summary.meanStepsToDetect.toFixed(2)}`,
  );
  if (summary.wrongReasons !== undefined) io.out(`ended for another reason than expected ${summary.wrongReasons}`);
  const unscored = cases.length - summary.cases;
  if (unscored > 0) io.out(`${unscored} unlabelled case${unscored === 1 ? '' : 's'} listed above, not scored`);
}

const isLabelled = (run: Run): run is Trajectory => run.label !== null;

/** Scores labelled runs; unlabelled ones keep their place in the list and stay out of the summary. */
function score(runs: Run[], replayed: Replayed[]): { cases: Case[]; summary: Summary } {
  const labelled: Trajectory[] = [];
  const scores: CaseScore[] = [];
  const cases = runs.map((run, i): Case => {
    const r = replayed[i]!;
    if (!isLabelled(run)) return { id: run.id, label: null, ...r.run, verdict: null, late: false, missedBreak: false, verdicts: r.verdicts };
    const s = scoreCase(run, r.run, r.exitReason);
    labelled.push(run);
    scores.push(s);
    return s;
  });
  return { cases, summary: summarise(labelled, scores) };
}

/**
 * `loopguard eval FILE [--json] [--preset NAME] [--config FILE]`: FILE in any
 * format `scan` reads. Exit 0 when evaluated, 2 on bad input.
 */
export async function evalCommand(argv: string[], io: CommandIO): Promise<number> {
  const args = parseReplayArgs(argv, 1, 'eval needs a FILE.jsonl');
  const detection = await loadDetection(args, io);
  if (detection === undefined) return 2;
  const read = await readRunFile('eval', args.files[0]!, detection, io);
  if (read === undefined) return 2;
  const { cases, summary } = score(read.runs, await replayRuns(read.runs, detection));
  if (args.json) io.out(JSON.stringify({ cases, summary }));
  else printTable(io, cases, summary);
  return 0;
}
