import { replayRuns, type Verdict } from '../eval/replay.js';
import type { CaseRun } from '../eval/score.js';
import type { ReadFile } from '../eval/formats/index.js';
import { loadDetection, parseReplayArgs, readRunFile } from './replay-args.js';
import type { CommandIO } from './io.js';

interface ScannedRun extends CaseRun {
  id: string;
  steps: number;
  verdicts: Verdict[];
}

interface ScannedFile {
  file: string;
  format: string;
  runs: ScannedRun[];
}

function printFile(io: CommandIO, f: ScannedFile): void {
  const flagged = f.runs.filter((r) => r.firstWarning !== null).length;
  io.out(`${f.file} (${f.format}): ${f.runs.length} run${f.runs.length === 1 ? '' : 's'}, ${flagged} flagged`);
  for (const r of f.runs) {
    const levels = r.firstWarning === null ? 'no loop found' : `warning at ${r.firstWarning}, critical at ${r.firstCritical ?? '-'}, break at ${r.firstBreak ?? '-'}`;
    io.out(`  ${r.id}  ${r.steps} steps  ${levels}`);
    for (const v of r.verdicts) {
      io.out(`    step ${String(v.step).padEnd(4)} ${v.level.padEnd(8)} ${v.detector}  count ${v.count}  period ${v.period}  tool ${v.tool}`);
    }
  }
}

/**
 * `loopguard scan FILE… [--json] [--preset NAME] [--config FILE]`: replays
 * unlabelled runs from agent logs and trace files and says, per run, which
 * verdicts the guard would have reached, where and why. Exit 0 when it
 * scanned (loops found or not), 2 on unreadable input.
 */
export async function scanCommand(argv: string[], io: CommandIO): Promise<number> {
  const args = parseReplayArgs(argv, Number.POSITIVE_INFINITY, 'scan needs at least one FILE');
  const detection = await loadDetection(args, io);
  if (detection === undefined) return 2;
  const reads: { file: string; read: ReadFile }[] = [];
  for (const file of args.files) {
    const read = await readRunFile('scan', file, detection, io);
    if (read === undefined) return 2;
    reads.push({ file, read });
  }
  const files: ScannedFile[] = [];
  for (const { file, read } of reads) {
    const replayed = await replayRuns(read.runs, detection);
    files.push({
      file,
      format: read.format,
      runs: read.runs.map((run, i) => ({ id: run.id, steps: run.steps.length, ...replayed[i]!.run, verdicts: replayed[i]!.verdicts })),
    });
  }
  if (args.json) io.out(JSON.stringify({ files }));
  else files.forEach((f, i) => {
    if (i > 0) io.out('');
    printFile(io, f);
  });
  return 0;
}
