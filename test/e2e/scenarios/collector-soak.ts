/**
 * The collector soak: many short runs through the real `loopguard collector`
 * process to the Go Collector backend, the collector's heap read after a
 * full GC (through its inspector) at even steps of the load, then the wait
 * for the idle runs to be swept and the heap once more. Shared by the e2e
 * test (a short soak) and `npm run soak:collector` (1 M spans over 100,000
 * runs), which records its figures in docs/benchmarks.md.
 */
import { collectorBackend } from './collector-backend.js';
import { sampleValue, scrape } from './prometheus-text.js';
import { SpanLoad } from './span-load.js';
import { startSpanSink } from './span-sink.js';
import { describeLog, freePort, memoryAfterGc, startLoopguardCollector, waitFor, type LoopguardCollectorInstance } from '../support/index.js';

export interface SoakOptions {
  runs: number;
  /** Spans per run (tool calls and the root span). */
  spansPerRun: number;
  runsPerRequest: number;
  senders: number;
  /** Heap readings during the load, one after each equal share of the runs. */
  samples: number;
  /** `detection.runTtlMs`: how long an idle run is kept. */
  runTtlMs: number;
  /** `detection.maxRuns`; the collector's default when unset. */
  maxRuns?: number;
  /** Progress lines (the script prints them; the test stays quiet). */
  log?: (line: string) => void;
}

export interface HeapSample {
  /** Spans acknowledged when the sample was taken. */
  spans: number;
  runs: number;
  heapUsedMb: number;
  /** ArrayBuffers outside the V8 heap: the engine's history rings live there. */
  arrayBuffersMb: number;
  /** heapUsed + arrayBuffers: what the collector holds, the figure to watch. */
  heapAndBuffersMb: number;
  rssMb: number;
  /** `loopguard_runs_active`: runs the engine tracks. */
  runsActive: number;
}

export interface SoakFigures {
  runs: number;
  spans: number;
  loadSeconds: number;
  spansPerSecond: number;
  /** Heap after GC once the collector was up, before any span. */
  baseline: HeapSample;
  duringLoad: HeapSample[];
  /** From the last acknowledged span until the engine tracked no run. */
  releasedAfterMs: number;
  runTtlMs: number;
  /** Heap after GC once every run was released. */
  idle: HeapSample;
  runsEvicted: number;
  delivered: number;
  dropped: number;
}

const MB = 1024 * 1024;
const mb = (bytes: number) => Math.round((bytes / MB) * 10) / 10;

async function sample(loopguard: LoopguardCollectorInstance, inspectPort: number, spans: number, runs: number): Promise<HeapSample> {
  const memory = await memoryAfterGc(inspectPort);
  const runsActive = sampleValue(await scrape(loopguard.url), 'loopguard_runs_active');
  return {
    spans,
    runs,
    heapUsedMb: mb(memory.heapUsed),
    arrayBuffersMb: mb(memory.arrayBuffers),
    heapAndBuffersMb: mb(memory.heapUsed + memory.arrayBuffers),
    rssMb: mb(memory.rss),
    runsActive,
  };
}

export async function soakCollector(options: SoakOptions): Promise<SoakFigures> {
  const log = options.log ?? (() => undefined);
  const sink = await startSpanSink({ keepIds: false });
  const backend = await collectorBackend(sink);
  let loopguard: LoopguardCollectorInstance | undefined;
  try {
    await backend.start();
    const inspectPort = await freePort();
    const detection = { runTtlMs: options.runTtlMs, ...(options.maxRuns === undefined ? {} : { maxRuns: options.maxRuns }) };
    loopguard = await startLoopguardCollector({
      forwardEndpoint: backend.url,
      nodeArgs: [`--inspect=127.0.0.1:${inspectPort}`],
      env: { LOOPGUARD_COLLECTOR_DETECTION: JSON.stringify(detection) },
    });
    const baseline = await sample(loopguard, inspectPort, 0, 0);
    log(`baseline: heap ${baseline.heapUsedMb} + buffers ${baseline.arrayBuffersMb} MB after GC, rss ${baseline.rssMb} MB`);

    const duringLoad: HeapSample[] = [];
    let spans = 0;
    let runs = 0;
    const collector = loopguard;
    const began = Date.now();
    let loadMs = 0;
    for (let step = 1; step <= options.samples; step++) {
      const share = Math.round((options.runs * step) / options.samples) - runs;
      const load = new SpanLoad({
        url: loopguard.url,
        senders: options.senders,
        runsPerRequest: options.runsPerRequest,
        spansPerRun: options.spansPerRun,
        totalRuns: share,
      });
      const stepBegan = Date.now();
      await load.start();
      loadMs += Date.now() - stepBegan;
      spans += load.stats.ackedSpans;
      runs += load.stats.ackedRuns;
      // Acknowledged is not yet forwarded: the queued batches are buffers too. Sample what the runs hold, not what is in transit.
      await waitFor(async () => sampleValue(await scrape(collector.url), 'loopguard_collector_spans_forwarded_total') >= spans, {
        description: `the ${spans} acknowledged spans forwarded`,
        timeoutMs: 60_000,
      });
      duringLoad.push(await sample(loopguard, inspectPort, spans, runs));
      const last = duringLoad.at(-1)!;
      log(`${runs} runs, ${spans} spans (${Math.round((Date.now() - began) / 1000)} s): heap ${last.heapUsedMb} + buffers ${last.arrayBuffersMb} MB after GC, rss ${last.rssMb} MB, ${last.runsActive} runs tracked`);
    }
    const lastSpanAt = Date.now();

    await waitFor(async () => sampleValue(await scrape(collector.url), 'loopguard_runs_active') === 0, {
      description: `every idle run released (runTtlMs ${options.runTtlMs})`,
      timeoutMs: options.runTtlMs + 30_000,
      intervalMs: 250,
    });
    const releasedAfterMs = Date.now() - lastSpanAt;
    const idle = await sample(loopguard, inspectPort, spans, runs);
    log(`idle runs released ${releasedAfterMs} ms after the last span: heap ${idle.heapUsedMb} + buffers ${idle.arrayBuffersMb} MB after GC, rss ${idle.rssMb} MB`);

    await waitFor(() => sink.delivered >= spans, { description: `all ${spans} spans at the backend`, timeoutMs: 120_000 });
    const metrics = await scrape(loopguard.url);
    return {
      runs,
      spans,
      loadSeconds: Math.round(loadMs / 100) / 10,
      spansPerSecond: Math.round(spans / (loadMs / 1000)),
      baseline,
      duringLoad,
      releasedAfterMs,
      runTtlMs: options.runTtlMs,
      idle,
      runsEvicted: sampleValue(metrics, 'loopguard_collector_runs_evicted_total'),
      delivered: sink.delivered,
      dropped: sampleValue(metrics, 'loopguard_collector_spans_dropped_total'),
    };
  } catch (error) {
    if (loopguard) throw new Error(`${error instanceof Error ? error.message : String(error)}\n${describeLog(loopguard.service)}`, { cause: error });
    throw error;
  } finally {
    await loopguard?.stop();
    await backend.stop();
    await sink.close();
  }
}
