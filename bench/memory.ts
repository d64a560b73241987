import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { round } from './stats.js';

/**
 * bytesPerRun: heap plus array-buffer bytes per tracked run, measured in a
 * child process started with --expose-gc so both readings follow a full GC.
 * The baseline is the same process's reading before the engine exists.
 */

export interface MemoryOptions {
  runs: number;
  eventsPerRun: number;
}

export const DEFAULT_MEMORY_OPTIONS: MemoryOptions = { runs: 100_000, eventsPerRun: 32 };

export interface MemoryResult {
  bytesPerRun: number;
  heapBytesPerRun: number;
  arrayBufferBytesPerRun: number;
  rssBytesPerRun: number;
  runs: number;
  eventsPerRun: number;
  window: number;
  trackedRuns: number;
  evictions: number;
}

interface ChildReport {
  runs: number;
  eventsPerRun: number;
  window: number;
  trackedRuns: number;
  evictions: number;
  heapUsedDelta: number;
  arrayBuffersDelta: number;
  externalDelta: number;
  rssDelta: number;
}

const run = promisify(execFile);

export async function measureMemory(options: MemoryOptions = DEFAULT_MEMORY_OPTIONS): Promise<MemoryResult> {
  const child = fileURLToPath(new URL('./memory-child.js', import.meta.url));
  const { stdout } = await run(process.execPath, ['--expose-gc', child, String(options.runs), String(options.eventsPerRun)], {
    maxBuffer: 1 << 20,
  });
  const report = JSON.parse(stdout.trim()) as ChildReport;
  if (report.trackedRuns !== options.runs || report.evictions !== 0) {
    throw new Error(`memory bench: expected ${options.runs} tracked runs and no evictions, got ${report.trackedRuns} and ${report.evictions}`);
  }
  const per = (bytes: number) => round(bytes / report.runs);
  return {
    bytesPerRun: per(report.heapUsedDelta + report.arrayBuffersDelta),
    heapBytesPerRun: per(report.heapUsedDelta),
    arrayBufferBytesPerRun: per(report.arrayBuffersDelta),
    rssBytesPerRun: per(report.rssDelta),
    runs: report.runs,
    eventsPerRun: report.eventsPerRun,
    window: report.window,
    trackedRuns: report.trackedRuns,
    evictions: report.evictions,
  };
}
