import { LoopEngine } from '../src/engine.js';
import { resolveDetectionOptions } from '../src/options.js';
import { randomHash16, seededRandom } from './stats.js';

/**
 * Child process of the memory benchmark, started with --expose-gc: tracks
 * `runs` runs with full windows in one LoopEngine and prints one JSON line
 * with the heap and array-buffer growth. Run keys are made inside the
 * measured span because the engine is what keeps them alive.
 */

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  process.stderr.write('memory-child: start node with --expose-gc\n');
  process.exit(2);
}
const runs = Number(process.argv[2]);
const eventsPerRun = Number(process.argv[3]);
if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(eventsPerRun) || eventsPerRun < 1) {
  process.stderr.write('usage: memory-child RUNS EVENTS_PER_RUN (positive integers)\n');
  process.exit(2);
}

const TOOLS = ['search', 'read_file', 'list_dir', 'run_tests', 'edit_file', 'fetch_url'];
const detection = resolveDetectionOptions({ maxRuns: runs });
const random = seededRandom(7);

function snapshot() {
  gc!();
  gc!();
  const m = process.memoryUsage();
  return { heapUsed: m.heapUsed, arrayBuffers: m.arrayBuffers, external: m.external, rss: m.rss };
}

const before = snapshot();
const engine = new LoopEngine(detection);
let clock = 1_764_460_800_000;
for (let r = 0; r < runs; r++) {
  const key = randomHash16(random) + randomHash16(random);
  for (let e = 0; e < eventsPerRun; e++) {
    const args = randomHash16(random);
    clock += 3;
    engine.record(key, {
      tool: TOOLS[(r + e) % TOOLS.length]!,
      argsHash: args,
      normArgsHash: args,
      resultHash: randomHash16(random),
      outcome: 'ok',
      blocked: false,
      startMs: clock,
      endMs: clock + 40,
    });
  }
}
const after = snapshot();

process.stdout.write(
  JSON.stringify({
    runs,
    eventsPerRun,
    window: detection.window,
    trackedRuns: engine.activeRuns,
    evictions: engine.evictions,
    heapUsedDelta: after.heapUsed - before.heapUsed,
    arrayBuffersDelta: after.arrayBuffers - before.arrayBuffers,
    externalDelta: after.external - before.external,
    rssDelta: after.rss - before.rss,
  }) + '\n',
);
