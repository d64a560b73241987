import { readFile } from 'node:fs/promises';
import { CorpusError } from '../eval/corpus.js';
import { FormatError, readRuns, type ReadFile } from '../eval/formats/index.js';
import { LoopGuardConfigError, resolveDetectionOptions, type DetectionOptions } from '../options.js';
import { loadOptionsFile } from './options-file.js';
import { UsageError, type CommandIO } from './io.js';

/** The options `eval` and `scan` share. */
export interface ReplayArgs {
  files: string[];
  json: boolean;
  preset: string | undefined;
  config: string | undefined;
}

/** `[--json] [--preset NAME] [--config FILE] FILE…`; `maxFiles` 1 for eval. */
export function parseReplayArgs(argv: string[], maxFiles: number, missingFile: string): ReplayArgs {
  const args: ReplayArgs = { files: [], json: false, preset: undefined, config: undefined };
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
    else if (args.files.length < maxFiles) args.files.push(a);
    else throw new UsageError(`unexpected argument ${a}`);
  }
  if (args.files.length === 0) throw new UsageError(missingFile);
  return args;
}

/** The detection options `--config` and `--preset` give; undefined (message printed) when they are invalid. */
export async function loadDetection(args: ReplayArgs, io: CommandIO): Promise<DetectionOptions | undefined> {
  let detection: DetectionOptions = {};
  try {
    if (args.config !== undefined) detection = await loadOptionsFile(args.config);
    if (args.preset !== undefined) detection = { ...detection, preset: args.preset as DetectionOptions['preset'] };
    resolveDetectionOptions(detection);
  } catch (err) {
    if (err instanceof LoopGuardConfigError || err instanceof UsageError) {
      io.err(err.message);
      return undefined;
    }
    throw err;
  }
  return detection;
}

/** Reads the runs of one file in any format loopguard reads; undefined (message naming the file printed) when it cannot. */
export async function readRunFile(command: string, file: string, detection: DetectionOptions, io: CommandIO): Promise<ReadFile | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    io.err(`loopguard ${command}: cannot read ${file}: ${(err as Error).message}`);
    return undefined;
  }
  try {
    return readRuns(file, text, { runKeyAttribute: detection.runKeyAttribute });
  } catch (err) {
    if (err instanceof CorpusError || err instanceof FormatError) {
      io.err(`loopguard ${command}: ${file}: ${err.message}`);
      return undefined;
    }
    throw err;
  }
}
