import { LoopEngine } from '../src/engine.js';
import type { HistoryEntry } from '../src/history.js';
import type { ResolvedDetectionOptions } from '../src/options.js';
import type { Outcome } from '../src/types.js';
import { randomHash16, seededRandom } from './stats.js';

/**
 * The event stream of the detector benchmark: many runs interleaved as a
 * collector would see them, most of them normal work and some stuck in each
 * kind of loop the detectors cover. Hashes are precomputed 16-hex strings so
 * the benchmark times detection alone. A looping run ends when the engine
 * breaks it (an agent stops there) or after `maxLoopSteps` calls; a normal
 * run ends after `normalRunLength` calls, below the tool-call fuse.
 */

export type RunKind =
  | 'normal'
  | 'no-progress'
  | 'ping-pong'
  | 'cycle'
  | 'repeat'
  | 'semantic-repeat'
  | 'empty-streak'
  | 'retry-storm'
  | 'pending-resubmit';

const LOOP_KINDS: readonly RunKind[] = [
  'no-progress',
  'ping-pong',
  'cycle',
  'repeat',
  'semantic-repeat',
  'empty-streak',
  'retry-storm',
  'pending-resubmit',
];

export interface WorkloadOptions {
  events: number;
  /** Runs in flight at once; each event goes to one of them at random. */
  concurrentRuns: number;
  /** Share of runs that are normal work. */
  normalShare: number;
  normalRunLength: number;
  maxLoopSteps: number;
  seed: number;
}

export const DEFAULT_WORKLOAD: WorkloadOptions = {
  events: 200_000,
  concurrentRuns: 256,
  normalShare: 0.6,
  normalRunLength: 100,
  maxLoopSteps: 80,
  seed: 20_261_130,
};

/** Struct-of-arrays stream: the timed loop builds each HistoryEntry from these, as a host would from a span. */
export interface Workload {
  length: number;
  runKey: string[];
  tool: string[];
  argsHash: string[];
  normArgsHash: string[];
  resultHash: string[];
  outcome: Outcome[];
  startMs: Float64Array;
  durationMs: Float64Array;
  /** What the detectors made of the stream (from the calibration pass; the replay is deterministic). */
  stats: WorkloadStats;
}

export interface WorkloadStats {
  runs: Record<RunKind, number>;
  eventsInLoopingRuns: number;
  loopingRunsBroken: number;
  decisions: { warning: number; critical: number; break: number; notified: number };
  detectorsFired: Record<string, number>;
}

interface Call {
  tool: string;
  argsHash: string;
  normArgsHash: string;
  resultHash: string;
  outcome: Outcome;
}

const NORMAL_TOOLS = ['search', 'read_file', 'list_dir', 'run_tests', 'edit_file', 'fetch_url'];

/** One agent run: produces its calls one at a time. */
class ScriptedRun {
  step = 0;
  readonly prefix: number;
  private readonly fixed: Call[] = [];
  private readonly seen: Call[] = [];

  constructor(
    readonly key: string,
    readonly kind: RunKind,
    private readonly random: () => number,
  ) {
    this.prefix = kind === 'normal' ? 0 : 3 + Math.floor(random() * 10);
  }

  private fresh(tool: string, outcome: Outcome = 'ok'): Call {
    const args = randomHash16(this.random);
    return { tool, argsHash: args, normArgsHash: args, resultHash: randomHash16(this.random), outcome };
  }

  /** A loop's repeated calls are fixed when the loop starts. */
  private loopCall(i: number, make: () => Call): Call {
    return (this.fixed[i] ??= make());
  }

  next(): Call {
    this.step++;
    const r = this.random;
    if (this.kind === 'normal' || this.step <= this.prefix) {
      const roll = r();
      let call: Call;
      if (roll < 0.08 && this.seen.length > 0) {
        // Re-reading something seen earlier in the run, unchanged: legitimate and common.
        call = this.seen[Math.floor(r() * this.seen.length)]!;
      } else if (roll < 0.14) {
        // Edit-test cycle: the same test command, results that move.
        const base = this.loopCall(100, () => this.fresh('run_tests'));
        call = { ...base, resultHash: randomHash16(r) };
      } else {
        call = this.fresh(NORMAL_TOOLS[Math.floor(r() * NORMAL_TOOLS.length)]!, r() < 0.05 ? 'empty' : 'ok');
      }
      if (this.seen.length < 32) this.seen.push(call);
      return call;
    }
    const k = this.step - this.prefix;
    switch (this.kind) {
      case 'no-progress':
        return this.loopCall(0, () => this.fresh('read_file'));
      case 'ping-pong':
        return this.loopCall(k % 2, () => this.fresh(k % 2 === 0 ? 'list_dir' : 'read_file'));
      case 'cycle':
        return this.loopCall(k % 3, () => this.fresh(['edit_file', 'run_tests', 'read_file'][k % 3]!));
      case 'repeat': {
        // A poll redone between other steps, its answer flip-flopping between two states.
        if (k % 2 === 1) return this.fresh(NORMAL_TOOLS[Math.floor(r() * NORMAL_TOOLS.length)]!);
        const base = this.loopCall(0, () => this.fresh('check_status'));
        const other = this.loopCall(1, () => this.fresh('check_status'));
        return k % 4 === 0 ? base : { ...base, resultHash: other.resultHash };
      }
      case 'semantic-repeat': {
        const base = this.loopCall(0, () => this.fresh('search'));
        return { ...base, argsHash: randomHash16(r) };
      }
      case 'empty-streak': {
        // Fresh made-up ids, the same "nothing found" answer each time.
        const empty = this.loopCall(0, () => this.fresh('lookup_user', 'empty'));
        const args = randomHash16(r);
        return { ...empty, argsHash: args, normArgsHash: args };
      }
      case 'retry-storm':
        return this.loopCall(0, () => this.fresh('deploy', 'error'));
      case 'pending-resubmit':
        return this.loopCall(0, () => this.fresh('start_job', 'pending'));
    }
  }
}

function emptyRuns(): Record<RunKind, number> {
  return Object.fromEntries(['normal', ...LOOP_KINDS].map((k) => [k, 0])) as Record<RunKind, number>;
}

export function buildWorkload(detection: ResolvedDetectionOptions, options: WorkloadOptions = DEFAULT_WORKLOAD): Workload {
  const random = seededRandom(options.seed);
  const calibration = new LoopEngine(detection);
  const n = options.events;
  const w: Workload = {
    length: n,
    runKey: new Array<string>(n),
    tool: new Array<string>(n),
    argsHash: new Array<string>(n),
    normArgsHash: new Array<string>(n),
    resultHash: new Array<string>(n),
    outcome: new Array<Outcome>(n),
    startMs: new Float64Array(n),
    durationMs: new Float64Array(n),
    stats: {
      runs: emptyRuns(),
      eventsInLoopingRuns: 0,
      loopingRunsBroken: 0,
      decisions: { warning: 0, critical: 0, break: 0, notified: 0 },
      detectorsFired: {},
    },
  };
  const stats = w.stats;
  let loopTurn = 0;
  const newRun = (): ScriptedRun => {
    const kind = random() < options.normalShare ? 'normal' : LOOP_KINDS[loopTurn++ % LOOP_KINDS.length]!;
    stats.runs[kind]++;
    return new ScriptedRun(randomHash16(random) + randomHash16(random), kind, random);
  };
  const slots = Array.from({ length: options.concurrentRuns }, newRun);
  let clock = 1_764_460_800_000;

  for (let i = 0; i < n; i++) {
    const slot = Math.floor(random() * slots.length);
    const run = slots[slot]!;
    const call = run.next();
    const duration = 5 + Math.floor(random() * 400);
    clock += 1 + Math.floor(random() * 3);
    w.runKey[i] = run.key;
    w.tool[i] = call.tool;
    w.argsHash[i] = call.argsHash;
    w.normArgsHash[i] = call.normArgsHash;
    w.resultHash[i] = call.resultHash;
    w.outcome[i] = call.outcome;
    w.startMs[i] = clock;
    w.durationMs[i] = duration;

    const entry: HistoryEntry = { ...call, blocked: false, startMs: clock, endMs: clock + duration };
    const decision = calibration.record(run.key, entry);
    if (run.kind !== 'normal') stats.eventsInLoopingRuns++;
    if (decision.level !== undefined) {
      stats.decisions[decision.level]++;
      if (decision.notify) stats.decisions.notified++;
      const top = decision.evidence[0]!.detector;
      stats.detectorsFired[top] = (stats.detectorsFired[top] ?? 0) + 1;
    }
    const broken = decision.level === 'break';
    if (broken && run.kind !== 'normal') stats.loopingRunsBroken++;
    const limit = run.kind === 'normal' ? options.normalRunLength : run.prefix + options.maxLoopSteps;
    if (broken || run.step >= limit) slots[slot] = newRun();
  }
  return w;
}
