import { readFile } from 'node:fs/promises';
import { CorpusError, parseCorpus } from '../eval/corpus.js';
import { replayCorpus } from '../eval/replay.js';
import { scoreCase, summarise, type CaseScore, type Summary } from '../eval/score.js';
import { LoopGuardConfigError, resolveDetectionOptions, type DetectionOptions } from '../options.js';
import { loadOptionsFile } from './options-file.js';
import { UsageError, type CommandIO } from './io.js';

interface EvalArgs {
  file: string;
  json: boolean;
  preset: string | undefined;
  config: string | undefined;
}

function parseArgs(argv: string[]): EvalArgs {
  const args: EvalArgs = { file: '', json: false, preset: undefined, config: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--json') args.json = true;
    else if (a === '--preset' || a === '--config') {
      const value = argv[++i];
      if (value === undefined) throw new UsageError(`${a} needs a value`);
      if (a === '--preset') args.preset = value;
      else args.config = value;
    } else if (a.startsWith('--preset=')) args.preset = a.slice('--preset='.length);
    else if (a.startsWith('--config=')) args.config = a.slice('--config='.length);
    else if (a.startsWith('-')) throw new UsageError(`unknown option ${a}`);
    else if (args.file === '') args.file = a;
    else throw new UsageError(`unexpected argument ${a}`);
  }
  if (args.file === '') throw new UsageError('eval needs a FILE.jsonl');
  return args;
}

function pct(x: number | null): string {
  return x === null ? 'n/a' : `${(x * 100).toFixed(1)}%`;
}

function printTable(io: CommandIO, scores: CaseScore[], summary: Summary): void {
  io.out(`${'id'.padEnd(14)} ${'label'.padEnd(6)} ${'verdict'.padEnd(7)} warn  crit  break  detectors`);
  for (const s of scores) {
    const flags = [s.late ? 'LATE' : '', s.missedBreak ? 'MISSED-BREAK' : ''].filter(Boolean).join(' ');
    const cell = (n: number | null) => String(n ?? '-').padEnd(5);
    io.out(`${s.id.padEnd(14)} ${s.label.padEnd(6)} ${s.verdict.padEnd(7)} ${cell(s.firstWarning)} ${cell(s.firstCritical)} ${cell(s.firstBreak)}  ${s.detectors.join(',') || '-'} ${flags}`.trimEnd());
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
}

/** `loopguard eval FILE.jsonl [--json] [--preset NAME] [--config FILE]`. Exit 0 when evaluated, 2 on bad input. */
export async function evalCommand(argv: string[], io: CommandIO): Promise<number> {
  const args = parseArgs(argv);
  let detection: DetectionOptions = {};
  try {
    if (args.config !== undefined) detection = await loadOptionsFile(args.config);
    if (args.preset !== undefined) detection = { ...detection, preset: args.preset as DetectionOptions['preset'] };
    resolveDetectionOptions(detection);
  } catch (err) {
    if (err instanceof LoopGuardConfigError || err instanceof UsageError) {
      io.err(err.message);
      return 2;
    }
    throw err;
  }
  let text: string;
  try {
    text = await readFile(args.file, 'utf8');
  } catch (err) {
    io.err(`loopguard eval: cannot read ${args.file}: ${(err as Error).message}`);
    return 2;
  }
  let trajectories;
  try {
    trajectories = parseCorpus(text);
  } catch (err) {
    if (err instanceof CorpusError) {
      io.err(`loopguard eval: ${args.file}: ${err.message}`);
      return 2;
    }
    throw err;
  }
  const runs = await replayCorpus(trajectories, detection);
  const scores = trajectories.map((t, i) => scoreCase(t, runs[i]!));
  const summary = summarise(trajectories, scores);
  if (args.json) io.out(JSON.stringify({ cases: scores, summary }));
  else printTable(io, scores, summary);
  return 0;
}
