import { OUTCOMES, type Outcome } from '../types.js';

/** One step of a benchmark trajectory (see the benchmark README). */
export interface TrajectoryStep {
  tool: string;
  args: unknown;
  result: unknown;
  hasResult: boolean;
  status: Outcome;
  error: string | undefined;
  /** Milliseconds since the run started, when the call began, and how long it took, when recorded. */
  t: number | undefined;
  durationMs: number | undefined;
}

export interface Trajectory {
  id: string;
  label: 'normal' | 'loop';
  title: string;
  steps: TrajectoryStep[];
  onset: number | undefined;
  detectBy: number | undefined;
  breakBy: number | undefined;
}

/** A corpus line that is not a valid trajectory; names the line and the field. */
export class CorpusError extends Error {
  readonly code = 'LOOPGUARD_BAD_CORPUS';
  constructor(
    readonly line: number,
    readonly field: string,
    expected: string,
  ) {
    super(`line ${line}: field "${field}" ${expected}`);
    this.name = 'CorpusError';
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalStep(line: number, field: string, value: unknown, steps: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new CorpusError(line, field, `must be a positive integer step (1..${steps})`);
  }
  return value;
}

function parseStep(line: number, index: number, raw: unknown): TrajectoryStep {
  const at = `steps[${index}]`;
  if (!isObject(raw)) throw new CorpusError(line, at, 'must be an object');
  if (typeof raw.tool !== 'string' || raw.tool === '') throw new CorpusError(line, `${at}.tool`, 'must be a non-empty string');
  const status = raw.status ?? 'ok';
  if (typeof status !== 'string' || !(OUTCOMES as readonly string[]).includes(status)) {
    throw new CorpusError(line, `${at}.status`, `must be one of ${OUTCOMES.join(', ')}`);
  }
  if (raw.error !== undefined && typeof raw.error !== 'string') throw new CorpusError(line, `${at}.error`, 'must be a string');
  for (const key of ['t', 'durationMs'] as const) {
    if (raw[key] !== undefined && (typeof raw[key] !== 'number' || !Number.isFinite(raw[key]))) {
      throw new CorpusError(line, `${at}.${key}`, 'must be a number of milliseconds');
    }
  }
  return {
    tool: raw.tool,
    args: raw.args ?? {},
    result: raw.result,
    hasResult: 'result' in raw,
    status: status as Outcome,
    error: raw.error as string | undefined,
    t: raw.t as number | undefined,
    durationMs: raw.durationMs as number | undefined,
  };
}

/** Parses one JSONL line (1-based `line` for messages). Unknown fields are ignored, as the format says. */
export function parseTrajectory(text: string, line: number): Trajectory {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new CorpusError(line, '(line)', `is not valid JSON: ${(err as Error).message}`);
  }
  if (!isObject(raw)) throw new CorpusError(line, '(line)', 'must be a JSON object');
  if (typeof raw.id !== 'string' || raw.id === '') throw new CorpusError(line, 'id', 'must be a non-empty string');
  if (raw.label !== 'normal' && raw.label !== 'loop') throw new CorpusError(line, 'label', 'must be "normal" or "loop"');
  // An agent that made no tool call is a trajectory too (nothing to flag): only a missing or non-array `steps` is malformed.
  if (!Array.isArray(raw.steps)) throw new CorpusError(line, 'steps', 'must be an array of steps');
  const steps = raw.steps.map((s, i) => parseStep(line, i, s));
  const expect = raw.expect ?? {};
  if (!isObject(expect)) throw new CorpusError(line, 'expect', 'must be an object');
  const onset = optionalStep(line, 'expect.onset', expect.onset, steps.length);
  const detectBy = optionalStep(line, 'expect.detectBy', expect.detectBy, steps.length);
  const breakBy = optionalStep(line, 'expect.breakBy', expect.breakBy, steps.length);
  if (raw.label === 'loop' && detectBy === undefined) throw new CorpusError(line, 'expect.detectBy', 'is required for a loop');
  return {
    id: raw.id,
    label: raw.label,
    title: typeof raw.title === 'string' ? raw.title : '',
    steps,
    onset,
    detectBy,
    breakBy,
  };
}

/** Parses a whole JSONL corpus; blank lines are skipped; ids must be unique. */
export function parseCorpus(text: string): Trajectory[] {
  const out: Trajectory[] = [];
  const ids = new Set<string>();
  text.split('\n').forEach((content, i) => {
    if (content.trim() === '') return;
    const t = parseTrajectory(content, i + 1);
    if (ids.has(t.id)) throw new CorpusError(i + 1, 'id', `must be unique within the file ("${t.id}" repeats)`);
    ids.add(t.id);
    out.push(t);
  });
  return out;
}
