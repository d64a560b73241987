import { OUTCOMES, type Outcome } from '../types.js';

/** A tool call of a benchmark trajectory (see the benchmark README). */
export interface ToolStep {
  kind?: 'tool';
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

/** A model response of a benchmark trajectory (the README's "A model turn"). */
export interface ModelStep {
  kind: 'model';
  outputTokens: number;
  inputTokens: number | undefined;
  /** As the model reported it (`stop`, `length`, `tool_calls`, ...); undefined when the recording has none. */
  finishReason: string | undefined;
  text: string | undefined;
  /** The agent treats this answer as its last. */
  final: boolean;
  t: number | undefined;
}

export type TrajectoryStep = ToolStep | ModelStep;

/** Exit reasons a trajectory may expect (`loopguard.run.exit_reason`, and those the format names ahead of loopguard reporting them). */
export const EXPECTED_REASONS = ['completed', 'completed_unverified', 'loop_break', 'budget', 'truncation', 'max_turns', 'aborted', 'error'] as const;

export interface Trajectory {
  id: string;
  label: 'normal' | 'loop';
  title: string;
  steps: TrajectoryStep[];
  onset: number | undefined;
  detectBy: number | undefined;
  breakBy: number | undefined;
  /** The run's output-token budget (`budget.outputTokens`), when it has one. */
  outputBudget?: number | undefined;
  /** The exit reason a correct guard gives (`expect.reason`). */
  reason?: string | undefined;
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

function optionalMs(line: number, at: string, raw: Record<string, unknown>, key: string): void {
  if (raw[key] !== undefined && (typeof raw[key] !== 'number' || !Number.isFinite(raw[key]))) {
    throw new CorpusError(line, `${at}.${key}`, 'must be a number of milliseconds');
  }
}

function tokenCount(line: number, field: string, value: unknown): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new CorpusError(line, field, 'must be a non-negative integer number of tokens');
}

function parseModelStep(line: number, at: string, raw: Record<string, unknown>): ModelStep {
  tokenCount(line, `${at}.outputTokens`, raw.outputTokens);
  if (raw.inputTokens !== undefined) tokenCount(line, `${at}.inputTokens`, raw.inputTokens);
  for (const key of ['finishReason', 'text'] as const) {
    if (raw[key] !== undefined && typeof raw[key] !== 'string') throw new CorpusError(line, `${at}.${key}`, 'must be a string');
  }
  if (raw.final !== undefined && typeof raw.final !== 'boolean') throw new CorpusError(line, `${at}.final`, 'must be true or false');
  optionalMs(line, at, raw, 't');
  return {
    kind: 'model',
    outputTokens: raw.outputTokens as number,
    inputTokens: raw.inputTokens as number | undefined,
    finishReason: raw.finishReason as string | undefined,
    text: raw.text as string | undefined,
    final: raw.final === true,
    t: raw.t as number | undefined,
  };
}

function parseStep(line: number, index: number, raw: unknown): TrajectoryStep {
  const at = `steps[${index}]`;
  if (!isObject(raw)) throw new CorpusError(line, at, 'must be an object');
  if (raw.kind === 'model') return parseModelStep(line, at, raw);
  if (raw.kind !== undefined && raw.kind !== 'tool') throw new CorpusError(line, `${at}.kind`, 'must be "tool" or "model"');
  if (typeof raw.tool !== 'string' || raw.tool === '') throw new CorpusError(line, `${at}.tool`, 'must be a non-empty string');
  const status = raw.status ?? 'ok';
  if (typeof status !== 'string' || !(OUTCOMES as readonly string[]).includes(status)) {
    throw new CorpusError(line, `${at}.status`, `must be one of ${OUTCOMES.join(', ')}`);
  }
  if (raw.error !== undefined && typeof raw.error !== 'string') throw new CorpusError(line, `${at}.error`, 'must be a string');
  optionalMs(line, at, raw, 't');
  optionalMs(line, at, raw, 'durationMs');
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
  const reason = expect.reason;
  if (reason !== undefined && !(EXPECTED_REASONS as readonly unknown[]).includes(reason)) {
    throw new CorpusError(line, 'expect.reason', `must be one of ${EXPECTED_REASONS.join(', ')}`);
  }
  let outputBudget: number | undefined;
  if (raw.budget !== undefined) {
    if (!isObject(raw.budget)) throw new CorpusError(line, 'budget', 'must be an object');
    const tokens = raw.budget.outputTokens;
    if (tokens !== undefined && (typeof tokens !== 'number' || !Number.isInteger(tokens) || tokens < 1)) {
      throw new CorpusError(line, 'budget.outputTokens', 'must be a positive integer number of tokens');
    }
    outputBudget = tokens as number | undefined;
  }
  return {
    id: raw.id,
    label: raw.label,
    title: typeof raw.title === 'string' ? raw.title : '',
    steps,
    onset,
    detectBy,
    breakBy,
    ...(outputBudget === undefined ? {} : { outputBudget }),
    ...(reason === undefined ? {} : { reason: reason as string }),
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
