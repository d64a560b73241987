import { cpus, loadavg } from 'node:os';
import { DEFAULT_DETECTOR_OPTIONS, measureDetector, type DetectorResult } from './detector.js';
import { DEFAULT_FINGERPRINT_OPTIONS, measureFingerprint, type FingerprintResult } from './fingerprint.js';
import { DEFAULT_MEMORY_OPTIONS, measureMemory, type MemoryResult } from './memory.js';
import { DEFAULT_MODEL_OUTPUT_OPTIONS, measureModelOutput, type ModelOutputResult } from './model-output.js';
import { DEFAULT_OVERHEAD_OPTIONS, measureOverhead, type OverheadResult } from './overhead.js';
import { formatReport } from './report.js';
import { round } from './stats.js';

/**
 * `npm run bench [-- --json] [-- --quick]`: runs every benchmark in this
 * process (the memory one in a child) and prints a table, or exactly one JSON
 * object with --json. Every figure is a ratio or a rate measured against a
 * baseline taken in the same run. --quick shortens every benchmark (smoke
 * runs; its figures are noisier).
 */

export interface BenchReport {
  overheadRatio: number;
  detectorEventsPerSec: number;
  bytesPerRun: number;
  details: {
    overhead: OverheadResult;
    detector: DetectorResult;
    memory: MemoryResult;
    fingerprint: FingerprintResult;
    modelOutput: ModelOutputResult;
    /** loadAverage: the 1-minute load average when the bench started and ended; above the CPU count, other processes competed for the cores. */
    environment: { node: string; platform: string; cpus: number; cpuModel: string; loadAverage: { start: number; end: number } };
    quick: boolean;
  };
}

function parseArgs(argv: string[]): { json: boolean; quick: boolean } {
  const out = { json: false, quick: false };
  for (const arg of argv) {
    if (arg === '--json') out.json = true;
    else if (arg === '--quick') out.quick = true;
    else {
      process.stderr.write(`bench: unknown argument ${JSON.stringify(arg)}; accepted: --json, --quick\n`);
      process.exit(2);
    }
  }
  return out;
}

async function main(): Promise<void> {
  const { json, quick } = parseArgs(process.argv.slice(2));
  const loadAtStart = loadavg()[0]!;
  const progress = (what: string) => {
    if (!json) process.stderr.write(`running ${what}...\n`);
  };

  progress('fingerprint');
  const fingerprint = measureFingerprint(quick ? { rounds: 3, opsPerRound: 5_000 } : DEFAULT_FINGERPRINT_OPTIONS);
  progress('model output');
  const modelOutput = measureModelOutput(quick ? { rounds: 3, opsPerRound: 10 } : DEFAULT_MODEL_OUTPUT_OPTIONS);
  progress('overhead');
  const overhead = await measureOverhead(quick ? { rounds: 3, warmupRounds: 1, callsPerRound: 2_000, callsPerRun: 100 } : DEFAULT_OVERHEAD_OPTIONS);
  progress('detector');
  const detector = measureDetector(
    quick ? { rounds: 2, warmupRounds: 1, workload: { ...DEFAULT_DETECTOR_OPTIONS.workload, events: 50_000 } } : DEFAULT_DETECTOR_OPTIONS,
  );
  progress('memory');
  const memory = await measureMemory(quick ? { runs: 10_000, eventsPerRun: 32 } : DEFAULT_MEMORY_OPTIONS);

  const cpu = cpus();
  const report: BenchReport = {
    overheadRatio: overhead.overheadRatio,
    detectorEventsPerSec: detector.detectorEventsPerSec,
    bytesPerRun: memory.bytesPerRun,
    details: {
      overhead,
      detector,
      memory,
      fingerprint,
      modelOutput,
      environment: {
        node: process.version,
        platform: `${process.platform} ${process.arch}`,
        cpus: cpu.length,
        cpuModel: cpu[0]?.model.trim() ?? 'unknown',
        loadAverage: { start: round(loadAtStart, 2), end: round(loadavg()[0]!, 2) },
      },
      quick,
    },
  };
  process.stdout.write(json ? JSON.stringify(report) + '\n' : formatReport(report) + '\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
