/** One option loopguard cannot accept. */
export interface OptionProblem {
  /** Its path, e.g. `thresholds.no-progress.warning`. */
  option: string;
  /** What it accepts. */
  expected: string;
  received: unknown;
}

/**
 * Thrown by `register()`, the processor and the collector for options they
 * cannot accept, with every problem of the options at once (a user fixes
 * them in one go, not one per run).
 */
export class LoopGuardConfigError extends Error {
  readonly code = 'LOOPGUARD_INVALID_OPTION';
  /** The first problem's option. */
  readonly option: string;
  readonly problems: readonly OptionProblem[];

  constructor(option: string, expected: string, received: unknown);
  constructor(problems: readonly OptionProblem[]);
  constructor(first: string | readonly OptionProblem[], expected?: string, received?: unknown) {
    const problems = typeof first === 'string' ? [{ option: first, expected: expected!, received }] : first;
    super(
      problems.length === 1
        ? `loopguard: ${describeProblem(problems[0]!)}`
        : `loopguard: ${problems.length} invalid options:\n${problems.map((p) => `  - ${describeProblem(p)}`).join('\n')}`,
    );
    this.name = 'LoopGuardConfigError';
    this.option = problems[0]?.option ?? '';
    this.problems = problems;
  }
}

/** One problem as a sentence: the option, what it accepts, what it got. */
export function describeProblem(p: OptionProblem): string {
  return `option "${p.option}" must be ${p.expected}; received ${describe(p.received)}`;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  if (value === null || typeof value !== 'object') return String(value);
  try {
    return JSON.stringify(value).slice(0, 80);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** Collects the problems of one set of options; `throwIfAny` reports them all in one error. */
export class OptionProblems {
  readonly list: OptionProblem[] = [];

  add(option: string, expected: string, received: unknown): void {
    this.list.push({ option, expected, received });
  }

  /** A problem for `received`, naming every accepted value, the closest to it first. */
  addChoice(option: string, accepted: readonly string[], received: unknown, what = 'one of'): void {
    const sorted = typeof received === 'string' ? byCloseness(received, accepted) : accepted;
    this.add(option, `${what} ${sorted.map((v) => JSON.stringify(v)).join(', ')}`, received);
  }

  throwIfAny(): void {
    if (this.list.length > 0) throw new LoopGuardConfigError(this.list);
  }
}

/** The candidates, closest to `input` first (edit distance, ignoring case); ties keep their order. */
export function byCloseness(input: string, candidates: readonly string[]): string[] {
  const target = input.toLowerCase();
  return candidates
    .map((c, i) => ({ c, i, d: editDistance(target, c.toLowerCase()) }))
    .sort((a, b) => a.d - b.d || a.i - b.i)
    .map((x) => x.c);
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length]!;
}
