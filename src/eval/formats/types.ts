import type { ToolStep, Trajectory, TrajectoryStep } from '../corpus.js';
import type { Input } from './input.js';

/** One agent run in the benchmark's trajectory form; `label` is null when the format carries no ground truth. */
export type Run = Omit<Trajectory, 'label'> & { label: Trajectory['label'] | null };

export type { TrajectoryStep };

/** Options a reader may need from the detection configuration. */
export interface ReadOptions {
  /** The configured attribute naming a span's run (`runKeyAttribute`), read before the built-in ones. */
  runKeyAttribute?: string | undefined;
}

/** One input format: recognised by content, turned into runs. */
export interface FormatReader {
  /** Short name printed in `scan` output. */
  name: string;
  /** What a file of this format looks like, for the error when no format fits. */
  looksLike: string;
  /** Whether the first JSON value of the file is of this format (cheap: keys and shapes only). */
  detect(first: unknown): boolean;
  /** All runs in the file; throws FormatError (or CorpusError) naming the line or path and field that are wrong. */
  read(input: Input, options: ReadOptions): Run[];
}

/** A step with nothing recorded but what the reader sets. */
export function step(tool: string, args: unknown, fields: Partial<ToolStep> = {}): ToolStep {
  return {
    tool,
    args,
    result: undefined,
    hasResult: false,
    status: 'ok',
    error: undefined,
    t: undefined,
    durationMs: undefined,
    ...fields,
  };
}

/** A run read from a format without labels. */
export function unlabelled(id: string, title: string, steps: TrajectoryStep[]): Run {
  return { id, label: null, title, steps, onset: undefined, detectBy: undefined, breakBy: undefined };
}
