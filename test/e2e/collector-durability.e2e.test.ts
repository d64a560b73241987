/**
 * Scenario: the loopguard collector (the CLI, `loopguard collector`, as a
 * process) between agents and a real trace backend that goes away — the Go
 * OpenTelemetry Collector (fixtures/otelcol-backend.yaml), which
 * acknowledges only what reached the span sink behind it, so every span id
 * the sink saw, and how often, is what the backend got.
 *
 * - The backend is down for 60 s under load: the queue fills, senders are
 *   told 503 + Retry-After and keep their spans; when the backend is back,
 *   every acknowledged span is delivered, none twice, none dropped.
 * - The collector is stopped (SIGTERM) while it sleeps in a retry backoff
 *   with the backend down and a persistent queue (`queue.directory`): it
 *   exits within its drain budget, and the next process on the same
 *   directory delivers every span the first one acknowledged.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { collectorBackend, type CollectorBackend } from './scenarios/collector-backend.js';
import { sampleValue, scrape } from './scenarios/prometheus-text.js';
import { trackServices } from './scenarios/running-services.js';
import { SpanLoad } from './scenarios/span-load.js';
import { startSpanSink, type SpanSink } from './scenarios/span-sink.js';
import { startLoopguardCollector, waitFor, type LoopguardCollectorInstance } from './support/index.js';

const services = trackServices();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function sinkAndBackend(): Promise<{ sink: SpanSink; backend: CollectorBackend }> {
  const sink = await startSpanSink({ keepIds: true });
  cleanups.push(() => sink.close());
  const backend = await collectorBackend(sink);
  cleanups.push(() => backend.stop());
  return { sink, backend };
}

async function startBackend(backend: CollectorBackend): Promise<void> {
  await backend.start();
  services.add(backend.instance!);
}

/** The acknowledged span ids the sink never received. */
function missing(load: SpanLoad, sink: SpanSink): string[] {
  return [...load.acked].filter((id) => !sink.ids.has(id));
}

async function queueSize(loopguard: LoopguardCollectorInstance): Promise<number> {
  return sampleValue(await scrape(loopguard.url), 'loopguard_collector_queue_size');
}

describe('loopguard collector durability, against the Go Collector as backend', () => {
  it('backend down for 60 s under load: 503 + Retry-After while the queue is full, then every acknowledged span delivered once', async () => {
    const { sink, backend } = await sinkAndBackend();
    await startBackend(backend);
    const loopguard = services.add(
      await startLoopguardCollector({
        forwardEndpoint: backend.url,
        // A short backoff ceiling, so delivery resumes within seconds of the backend's return.
        env: { LOOPGUARD_COLLECTOR_BATCH_INTERVAL_MS: '100', LOOPGUARD_COLLECTOR_FORWARD_RETRY_MAX_BACKOFF_MS: '2000' },
      }),
    );
    const load = new SpanLoad({ url: loopguard.url, senders: 2, runsPerRequest: 32, spansPerRun: 8, pauseMs: 20, keepIds: true });
    const sending = load.start();
    cleanups.push(() => load.stop());

    await waitFor(() => sink.delivered >= 5_000, { description: 'spans flowing to the backend', timeoutMs: 60_000 });
    await backend.stop();
    const downAt = Date.now();
    await waitFor(() => load.stats.refused503 > 0, { description: 'the queue full: 503 to the senders', timeoutMs: 50_000 });
    await sleep(60_000 - (Date.now() - downAt));
    await startBackend(backend);
    // Load goes on for a while with the backend back.
    await sleep(5_000);
    await load.stop();
    await sending;

    await waitFor(async () => sink.delivered >= load.stats.ackedSpans && (await queueSize(loopguard)) === 0, {
      description: `all ${load.stats.ackedSpans} acknowledged spans at the sink`,
      timeoutMs: 90_000,
    });
    expect(missing(load, sink)).toEqual([]);
    expect(sink.duplicates()).toBe(0);
    expect(sink.ids.size).toBe(load.acked.size);
    expect(load.stats.connectionErrors).toBe(0);

    const metrics = await scrape(loopguard.url);
    expect(sampleValue(metrics, 'loopguard_collector_spans_dropped_total')).toBe(0);
    expect(sampleValue(metrics, 'loopguard_collector_spans_forwarded_total')).toBe(load.stats.ackedSpans);
    expect(sampleValue(metrics, 'loopguard_collector_requests_rejected_total', { reason: 'backpressure' })).toBe(load.stats.refused503);
    console.info(
      `backend down 60 s: ${load.stats.ackedSpans} spans acknowledged and delivered once, ` +
        `${load.stats.refused503} requests answered 503 meanwhile, ${load.stats.requests} requests in all`,
    );
  }, 240_000);

  it('SIGTERM during a retry backoff with a persistent queue: the next process delivers every acknowledged span', async () => {
    const { sink, backend } = await sinkAndBackend();
    const directory = mkdtempSync(join(tmpdir(), 'loopguard-e2e-queue-'));
    cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
    const drainBudgetMs = 1_000;
    const env = {
      LOOPGUARD_COLLECTOR_BATCH_INTERVAL_MS: '100',
      LOOPGUARD_COLLECTOR_QUEUE_DIRECTORY: directory,
      // A backoff far longer than the drain budget: the SIGTERM must wake it.
      LOOPGUARD_COLLECTOR_FORWARD_RETRY_INITIAL_BACKOFF_MS: '30000',
      LOOPGUARD_COLLECTOR_SHUTDOWN_TIMEOUT_MS: String(drainBudgetMs),
    };

    // The backend is down from the start: nothing can be delivered before the restart.
    const first = services.add(await startLoopguardCollector({ forwardEndpoint: backend.url, env, name: 'loopguard-collector-first' }));
    const load = new SpanLoad({ url: first.url, senders: 2, runsPerRequest: 32, spansPerRun: 8, totalRuns: 640, keepIds: true });
    await load.start();
    expect(load.stats).toMatchObject({ ackedSpans: 5_120, refused503: 0, connectionErrors: 0 });
    await waitFor(() => /retrying in \d+ ms/.test(first.service.logTail(20)), { description: 'a failed forward and its retry backoff', timeoutMs: 20_000 });

    const stoppedAt = Date.now();
    await first.stop();
    const stopMs = Date.now() - stoppedAt;
    expect(first.service.exit).toEqual({ code: 0, signal: null });
    // Woken from its 30 s backoff, it gave up at the end of its drain budget.
    expect(stopMs).toBeLessThan(drainBudgetMs + 4_000);
    expect(readdirSync(directory).length).toBeGreaterThan(0);
    expect(sink.delivered).toBe(0);

    await startBackend(backend);
    const second = services.add(await startLoopguardCollector({ forwardEndpoint: backend.url, env, name: 'loopguard-collector-second' }));
    await waitFor(() => sink.delivered >= load.stats.ackedSpans, { description: `all ${load.stats.ackedSpans} acknowledged spans after the restart`, timeoutMs: 30_000 });
    await waitFor(() => readdirSync(directory).length === 0, { description: 'the persistent queue emptied', timeoutMs: 10_000 });
    expect(missing(load, sink)).toEqual([]);
    expect(sink.duplicates()).toBe(0);
    expect(sink.ids.size).toBe(load.acked.size);
    expect(sampleValue(await scrape(second.url), 'loopguard_collector_spans_forwarded_total')).toBe(load.stats.ackedSpans);
    console.info(`SIGTERM during backoff: stopped in ${stopMs} ms, ${load.stats.ackedSpans} acknowledged spans delivered after the restart`);
  }, 120_000);
});
