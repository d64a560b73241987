/**
 * Scenario: a short soak of the real `loopguard collector` process — 120,000
 * spans over 12,000 runs to the Go Collector as backend, with a tracked-run
 * cap of 1,000, full from the first sample on. The collector's heap and
 * array buffers are read after a full GC (through its inspector) after each
 * sixth of the runs; they must stay flat while the spans grow sixfold, and
 * once the load stops the idle runs must be released within their TTL.
 *
 * `npm run soak:collector` runs the long soak (1 M spans over 100,000 runs,
 * the default cap) and docs/benchmarks.md records its figures.
 */
import { describe, expect, it } from 'vitest';
import { soakCollector } from './scenarios/collector-soak.js';

const MAX_RUNS = 1_000;
const RUN_TTL_MS = 20_000;
/** What a sweep every second and a metrics poll every 250 ms may add to the TTL. */
const SWEEP_SLACK_MS = 3_000;

describe('loopguard collector soak (short)', () => {
  it('keeps the heap after GC flat under load with the run cap working, and releases idle runs within the TTL', async () => {
    const figures = await soakCollector({ runs: 12_000, spansPerRun: 10, runsPerRequest: 50, senders: 2, samples: 6, runTtlMs: RUN_TTL_MS, maxRuns: MAX_RUNS });
    console.info(`collector soak (short): ${JSON.stringify(figures)}`);

    expect(figures).toMatchObject({ runs: 12_000, spans: 120_000, delivered: 120_000, dropped: 0 });
    // The cap held from the first sample on, and every run was let go: by the cap or, at the end, by the TTL.
    for (const sample of figures.duringLoad) expect(sample.runsActive).toBeLessThanOrEqual(MAX_RUNS);
    expect(figures.runsEvicted).toBe(figures.runs);

    // Flat: sixfold the spans, the same heap and buffers after GC (within 3 MB) once the cap is full.
    const held = figures.duringLoad.map((sample) => sample.heapAndBuffersMb);
    expect(Math.max(...held) - Math.min(...held)).toBeLessThanOrEqual(3);

    // Released within the TTL: no run tracked, and less held than at any point of the load.
    expect(figures.releasedAfterMs).toBeLessThanOrEqual(RUN_TTL_MS + SWEEP_SLACK_MS);
    expect(figures.idle.runsActive).toBe(0);
    expect(figures.idle.heapAndBuffersMb).toBeLessThan(Math.min(...held));
  }, 300_000);
});
