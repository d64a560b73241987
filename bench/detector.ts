import { LoopEngine } from '../src/engine.js';
import type { HistoryEntry } from '../src/history.js';
import { resolveDetectionOptions } from '../src/options.js';
import { buildWorkload, DEFAULT_WORKLOAD, type Workload, type WorkloadOptions, type WorkloadStats } from './detector-workload.js';
import { cpuNs, median, nowNs, round, sink, spread } from './stats.js';

/**
 * detectorEventsPerSec: `LoopEngine.record` alone (default options, hashing
 * excluded) over a mixed stream of normal and looping runs. The baseline is
 * the same loop building the same entries without recording them; the
 * headline counts the whole loop (entry building included, as a host pays
 * it), and the engine's own share is reported next to it.
 */

export interface DetectorBenchOptions {
  rounds: number;
  warmupRounds: number;
  workload: WorkloadOptions;
}

export const DEFAULT_DETECTOR_OPTIONS: DetectorBenchOptions = { rounds: 7, warmupRounds: 2, workload: DEFAULT_WORKLOAD };

export interface DetectorResult {
  detectorEventsPerSec: number;
  nsPerEvent: number;
  emptyLoopNsPerEvent: number;
  engineOnlyNsPerEvent: number;
  engineOnlyEventsPerSec: number;
  /**
   * CPU time per event (process user + system, so GC helper threads count
   * too). Close to nsPerEvent on an idle machine; when other processes
   * compete for the cores, wall time grows and this does not.
   */
  cpuNsPerEvent: number;
  spread: number;
  rounds: number;
  warmupRounds: number;
  events: number;
  concurrentRuns: number;
  workload: WorkloadStats;
}

function entryAt(w: Workload, i: number): HistoryEntry {
  const start = w.startMs[i]!;
  return {
    tool: w.tool[i]!,
    argsHash: w.argsHash[i]!,
    normArgsHash: w.normArgsHash[i]!,
    resultHash: w.resultHash[i]!,
    outcome: w.outcome[i]!,
    blocked: false,
    startMs: start,
    endMs: start + w.durationMs[i]!,
  };
}

/** Wall and CPU ns per event of recording the whole stream. */
function recordAll(engine: LoopEngine, w: Workload): { wall: number; cpu: number } {
  const c0 = cpuNs();
  const t0 = nowNs();
  let acc = 0;
  for (let i = 0; i < w.length; i++) acc += engine.record(w.runKey[i]!, entryAt(w, i)).step;
  const ns = nowNs() - t0;
  const cpu = cpuNs() - c0;
  sink.value += acc;
  return { wall: ns / w.length, cpu: cpu / w.length };
}

function buildOnly(w: Workload): number {
  const t0 = nowNs();
  let acc = 0;
  for (let i = 0; i < w.length; i++) {
    const e = entryAt(w, i);
    acc += e.endMs + e.argsHash.length + w.runKey[i]!.length;
  }
  const ns = nowNs() - t0;
  sink.value += acc;
  return ns / w.length;
}

export function measureDetector(options: DetectorBenchOptions = DEFAULT_DETECTOR_OPTIONS): DetectorResult {
  const detection = resolveDetectionOptions();
  const workload = buildWorkload(detection, options.workload);
  const recordNs: number[] = [];
  const recordCpuNs: number[] = [];
  const emptyNs: number[] = [];
  for (let r = 0; r < options.warmupRounds + options.rounds; r++) {
    // A fresh engine each round: the replay starts from no tracked runs, as the calibration pass did.
    const engine = new LoopEngine(detection);
    const e = buildOnly(workload);
    const rec = recordAll(engine, workload);
    if (r < options.warmupRounds) continue;
    recordNs.push(rec.wall);
    recordCpuNs.push(rec.cpu);
    emptyNs.push(e);
  }
  const perEvent = median(recordNs);
  const empty = median(emptyNs);
  const engineOnly = Math.max(perEvent - empty, 1e-9);
  return {
    detectorEventsPerSec: Math.round(1e9 / perEvent),
    nsPerEvent: round(perEvent, 1),
    emptyLoopNsPerEvent: round(empty, 1),
    engineOnlyNsPerEvent: round(engineOnly, 1),
    engineOnlyEventsPerSec: Math.round(1e9 / engineOnly),
    cpuNsPerEvent: round(median(recordCpuNs), 1),
    spread: round(spread(recordNs), 3),
    rounds: options.rounds,
    warmupRounds: options.warmupRounds,
    events: workload.length,
    concurrentRuns: options.workload.concurrentRuns,
    workload: workload.stats,
  };
}
