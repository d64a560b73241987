import { ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCollector } from '../../../src/collector/index.js';
import type { RunningCollector } from '../../../src/collector/index.js';
import type { OtlpSpan } from '../../../src/collector/otlp-model.js';
import { attr, spansOf, startUpstream, waitFor } from './helpers.js';
import type { Upstream } from './helpers.js';

/**
 * The real LoopGuardSpanProcessor behind the collector, fed by a real
 * OpenTelemetry SDK agent exporting with the real OTLP/HTTP exporter.
 */
let upstream: Upstream;
let collector: RunningCollector;

beforeAll(async () => {
  upstream = await startUpstream();
  collector = await startCollector(
    { listen: { host: '127.0.0.1', port: 0 }, forward: { endpoint: upstream.url }, batch: { intervalMs: 0 } },
    { log: () => {} },
  );
});
afterAll(async () => {
  await collector.close();
  await upstream.close();
});

/** An agent run: an invoke_agent root and one execute_tool span per call, each exported as it ends. */
async function runAgent(
  exporter: SpanExporter,
  conversationId: string,
  calls: { args: unknown; result?: unknown; attributes?: Record<string, string> }[],
  idOnToolSpans = true,
): Promise<void> {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'python-like-agent' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('agent');
  const root = tracer.startSpan('invoke_agent support', { attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': conversationId } });
  const ctx = trace.setSpan(ROOT_CONTEXT, root);
  for (const call of calls) {
    const span = tracer.startSpan(
      'execute_tool search',
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'search',
          ...(idOnToolSpans ? { 'gen_ai.conversation.id': conversationId } : {}),
          'gen_ai.tool.call.arguments': JSON.stringify(call.args),
          ...call.attributes,
        },
      },
      ctx,
    );
    if (call.result !== undefined) span.setAttribute('gen_ai.tool.call.result', JSON.stringify(call.result));
    span.end();
  }
  root.end();
  // No shutdown: it would clear an InMemorySpanExporter before the test reads it.
  await provider.forceFlush();
}

const forwardedFor = (conversationId: string): OtlpSpan[] =>
  spansOf(upstream.accepted).filter((s) => attr(s, 'gen_ai.conversation.id') === conversationId);

describe('collector with the real LoopGuardSpanProcessor', () => {
  it('detects a looping agent, annotates the forwarded spans and serves its verdict', async () => {
    const looping = Array.from({ length: 12 }, () => ({ args: { q: 'refund policy' }, result: { hits: [] as string[] } }));
    await runAgent(new OTLPTraceExporter({ url: `${collector.url}/v1/traces` }), 'conv-loop', looping);
    await waitFor(() => forwardedFor('conv-loop').length === 13, 10_000, 'all 13 spans forwarded');

    const spans = forwardedFor('conv-loop');
    const tools = spans.filter((s) => s.name === 'execute_tool search');
    expect(tools.map((s) => attr(s, 'loopguard.step'))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(new Set(tools.map((s) => attr(s, 'loopguard.args.hash'))).size).toBe(1);
    expect(tools.every((s) => /^[0-9a-f]{16}$/.test(String(attr(s, 'loopguard.args.hash'))))).toBe(true);
    const flagged = tools.filter((s) => attr(s, 'loopguard.level') !== undefined);
    expect(flagged.length).toBeGreaterThan(0);
    const events = tools.flatMap((s) => s.events ?? []).filter((e) => e.name === 'loopguard.loop_detected');
    expect(events.length).toBeGreaterThan(0);
    const event = events[0]!;
    const eventAttrs = Object.fromEntries((event.attributes ?? []).map((kv) => [kv.key, kv.value?.stringValue ?? kv.value?.intValue]));
    expect(Object.keys(eventAttrs)).toEqual(expect.arrayContaining(['loopguard.detector', 'loopguard.level', 'loopguard.count', 'loopguard.action']));
    // The event lies within its span, not at the time the collector saw it.
    const span = tools.find((s) => s.events?.includes(event))!;
    expect(BigInt(event.timeUnixNano!)).toBe(BigInt(span.endTimeUnixNano!));

    const root = spans.find((s) => s.name === 'invoke_agent support')!;
    expect(attr(root, 'loopguard.run.tool_calls')).toBe(12);
    expect(Number(attr(root, 'loopguard.run.detections'))).toBeGreaterThan(0);

    const res = await fetch(`${collector.url}/v1/runs/conv-loop`);
    expect(res.status).toBe(200);
    const verdict = (await res.json()) as Record<string, unknown>;
    expect(verdict).toMatchObject({ runKey: 'conv-loop', toolCalls: 12 });
    expect(verdict.level).not.toBeNull();

    const metrics = await (await fetch(`${collector.url}/metrics`)).text();
    expect(metrics).toContain('loopguard_tool_calls_total{gen_ai_tool_name="search",outcome="empty"} 12\n');
    expect(metrics).toMatch(/^loopguard_detections_total\{detector="[a-z-]+",level="(warning|critical|break)",gen_ai_tool_name="search"\} \d+$/m);
    expect(metrics).toMatch(/^# TYPE loopguard_runs_active gauge$/m);
    expect(metrics).toContain('loopguard_collector_spans_received_total 13\n');
  });

  it('signs short arguments with their words and catches the same question reworded finding nothing', async () => {
    const queries = ['refund policy damaged items', 'damaged items refund policy', 'refund policy for damaged items', 'refund policy for items damaged in transit', 'damaged item refund policy'];
    const calls = queries.map((q) => ({ args: { q }, result: { hits: [] as string[] } }));
    await runAgent(new OTLPTraceExporter({ url: `${collector.url}/v1/traces` }), 'conv-reworded', calls);
    await waitFor(() => forwardedFor('conv-reworded').length === 6, 10_000, 'all 6 spans forwarded');
    const tools = forwardedFor('conv-reworded').filter((s) => s.name === 'execute_tool search');
    expect(tools.every((s) => /^[0-9a-f]{32}$/.test(String(attr(s, 'loopguard.args.words'))))).toBe(true);
    // Five different argument hashes: no exact repeat, only the same question in other words.
    expect(new Set(tools.map((s) => attr(s, 'loopguard.args.hash'))).size).toBe(5);
    const events = tools.flatMap((s) => s.events ?? []).filter((e) => e.name === 'loopguard.loop_detected');
    const detectors = events.map((e) => e.attributes?.find((kv) => kv.key === 'loopguard.detector')?.value?.stringValue);
    expect(detectors[0]).toBe('empty-streak');
    expect(attr(tools[3]!, 'loopguard.level')).toBe('warning');
    expect(attr(tools[2]!, 'loopguard.level')).toBeUndefined();
  });

  /** A browsing run that keeps coming back to two views, read in other words each time (a vision model's transcripts). */
  const browsing = ['Price History', 'Quotes', 'Price History', 'Quotes', 'Price History'].flatMap((page, n) => [
    { args: { q: `apple stock attempt ${n}` }, result: `[Search ${n}](https://search.example.com/?q=${n}) at the top | OCR: results ${n}` },
    { args: { open: page }, result: `[${page}](https://finance.example.com/${page.length}) at the top | OCR: transcript ${n} of ${page}` },
  ]);

  it('marks each result with the page view it shows, and sees a run come back to views it has read', async () => {
    await runAgent(new OTLPTraceExporter({ url: `${collector.url}/v1/traces` }), 'conv-pages', browsing);
    await waitFor(() => forwardedFor('conv-pages').length === 11, 10_000, 'all 11 spans forwarded');
    const pages = forwardedFor('conv-pages')
      .filter((s) => s.name === 'execute_tool search')
      .map((s) => String(attr(s, 'loopguard.result.page')));
    expect(pages.every((p) => /^[0-9a-f]{16}$/.test(p))).toBe(true);
    // Two pages come back, each with another reading: the same view however it was read.
    expect(new Set(pages).size).toBe(7);
    expect(pages[5]).toBe(pages[1]);
    expect(pages[7]).toBe(pages[3]);
    const verdict = (await (await fetch(`${collector.url}/v1/runs/conv-pages`)).json()) as Record<string, unknown>;
    expect(verdict.level).toBe('warning');
  });

  it('reads the page views an SDK in another process hashed (no result on the spans)', async () => {
    const hashed = browsing.map(({ args }, n) => ({
      args,
      attributes: { 'loopguard.result.hash': `${n}`.padStart(16, '0'), 'loopguard.result.page': n % 2 ? `${(n % 4) + 1}`.padStart(16, 'a') : `${n}`.padStart(16, 'b') },
    }));
    await runAgent(new OTLPTraceExporter({ url: `${collector.url}/v1/traces` }), 'conv-pages-hashed', hashed);
    await waitFor(() => forwardedFor('conv-pages-hashed').length === 11, 10_000, 'all 11 spans forwarded');
    const verdict = (await (await fetch(`${collector.url}/v1/runs/conv-pages-hashed`)).json()) as Record<string, unknown>;
    expect(verdict.level).toBe('warning');
  });

  it('leaves a run that makes progress alone (protobuf this time)', async () => {
    const memory = new InMemorySpanExporter();
    const calls = Array.from({ length: 12 }, (_, i) => ({ args: { q: `topic ${i}` }, result: { hits: [`doc-${i}`] } }));
    await runAgent(memory, 'conv-ok', calls);
    const body = ProtobufTraceSerializer.serializeRequest(memory.getFinishedSpans())!;
    const res = await fetch(`${collector.url}/v1/traces`, { method: 'POST', body, headers: { 'content-type': 'application/x-protobuf' } });
    expect(res.status).toBe(200);
    await waitFor(() => forwardedFor('conv-ok').length === 13);
    const tools = forwardedFor('conv-ok').filter((s) => s.name === 'execute_tool search');
    expect(tools.map((s) => attr(s, 'loopguard.step'))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(tools.filter((s) => attr(s, 'loopguard.level') !== undefined)).toEqual([]);
    const verdict = (await (await fetch(`${collector.url}/v1/runs/conv-ok`)).json()) as Record<string, unknown>;
    expect(verdict).toMatchObject({ runKey: 'conv-ok', toolCalls: 12, level: null, stopped: false, detections: 0 });
  });
});

describe('model turns through the collector', () => {
  it('judges an agent\'s LLM spans, stamps why the run ended on its root and counts loopguard_runs_ended_total', async () => {
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'python-like-agent' }),
      spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${collector.url}/v1/traces` }))],
    });
    const tracer = provider.getTracer('agent');
    const conversation = 'conv-truncated';
    const root = tracer.startSpan('invoke_agent writer', { attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': conversation } });
    const ctx = trace.setSpan(ROOT_CONTEXT, root);
    for (let i = 0; i < 3; i++) {
      tracer
        .startSpan('chat gpt-4o', { attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.conversation.id': conversation, 'gen_ai.usage.output_tokens': 4096, 'gen_ai.response.finish_reasons': ['length'] } }, ctx)
        .end();
    }
    root.end();
    await provider.forceFlush();
    await waitFor(() => forwardedFor(conversation).length === 4, 10_000, 'all 4 spans forwarded');
    const spans = forwardedFor(conversation);
    expect(spans.filter((s) => s.name === 'chat gpt-4o').map((s) => attr(s, 'loopguard.level'))).toEqual([undefined, 'warning', 'break']);
    const forwardedRoot = spans.find((s) => s.name === 'invoke_agent writer')!;
    expect(attr(forwardedRoot, 'loopguard.run.exit_reason')).toBe('truncation');
    expect(attr(forwardedRoot, 'loopguard.run.stop_reason')).toBe('truncation');
    const metrics = await (await fetch(`${collector.url}/metrics`)).text();
    expect(metrics).toMatch(/^loopguard_runs_ended_total\{reason="truncation"\} 1$/m);
  });
});

describe('the completion gate through the collector (it cannot ask: it records)', () => {
  /** A remote agent's run: a refused health check (and a passing re-check when `rechecked`), then the root ends. */
  async function remoteRun(conversation: string, rechecked: boolean, rootError?: string, via: RunningCollector = collector): Promise<OtlpSpan> {
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${via.url}/v1/traces` }))] });
    const tracer = provider.getTracer('agent');
    const root = tracer.startSpan('invoke_agent deployer', { attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': conversation } });
    const ctx = trace.setSpan(ROOT_CONTEXT, root);
    const check = (failed: boolean) => {
      const span = tracer.startSpan(
        'execute_tool bash',
        { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'bash', 'gen_ai.conversation.id': conversation, 'gen_ai.tool.call.arguments': JSON.stringify({ command: 'curl -sf http://localhost:8080/health' }) } },
        ctx,
      );
      if (failed) span.setStatus({ code: 2, message: 'curl: (7) Failed to connect to localhost port 8080: Connection refused' });
      else span.setAttribute('gen_ai.tool.call.result', '{"status":"ok"}');
      span.end();
    };
    check(true);
    if (rechecked) check(false);
    if (rootError !== undefined) {
      root.setStatus({ code: 2, message: 'limit' });
      root.setAttribute('error.type', rootError);
    }
    root.end();
    await provider.forceFlush();
    const expected = rechecked ? 3 : 2;
    await waitFor(() => forwardedFor(conversation).length === expected, 10_000, `all ${expected} spans forwarded`);
    await provider.shutdown();
    return forwardedFor(conversation).find((s) => s.name === 'invoke_agent deployer')!;
  }

  it('stamps completed_unverified, the count and the subjects on a run that ends with its health check still failing', async () => {
    const root = await remoteRun('conv-unverified', false);
    expect(attr(root, 'loopguard.run.exit_reason')).toBe('completed_unverified');
    expect(attr(root, 'loopguard.run.unresolved_failures')).toBe(1);
    expect(JSON.stringify(root.events)).toContain('service://localhost:8080');
    const metrics = await (await fetch(`${collector.url}/metrics`)).text();
    expect(metrics).toMatch(/^loopguard_runs_ended_total\{reason="completed_unverified"\} 1$/m);
  });

  it('a failure re-checked green ends completed; a framework turn-limit error ends max_turns', async () => {
    expect(attr(await remoteRun('conv-verified', true), 'loopguard.run.exit_reason')).toBe('completed');
    expect(attr(await remoteRun('conv-max-turns', true, 'MaxTurnsExceededError'), 'loopguard.run.exit_reason')).toBe('max_turns');
  });

  it('is off with detection.disable [completion-gate]: the same run ends completed, with no unresolved failures', async () => {
    const gateOff = await startCollector(
      { listen: { host: '127.0.0.1', port: 0 }, forward: { endpoint: upstream.url }, batch: { intervalMs: 0 }, detection: { disable: ['completion-gate'] } },
      { log: () => {} },
    );
    try {
      const root = await remoteRun('conv-gate-off', false, undefined, gateOff);
      expect(attr(root, 'loopguard.run.exit_reason')).toBe('completed');
      expect(attr(root, 'loopguard.run.unresolved_failures')).toBeUndefined();
    } finally {
      await gateOff.close();
    }
  });
});

describe('runs keyed by a conversation id only the root span carries', () => {
  it('moves the run to the conversation id when the root arrives after its tool calls, and reports the break once', async () => {
    const breaks = async (): Promise<number> => {
      const text = await (await fetch(`${collector.url}/metrics`)).text();
      return Number(/^loopguard_detections_total\{detector="no-progress",level="break",gen_ai_tool_name="search"\} (\d+)$/m.exec(text)?.[1] ?? 0);
    };
    const before = await breaks();
    const memory = new InMemorySpanExporter();
    const looping = Array.from({ length: 14 }, () => ({ args: { q: 'refund policy' }, result: { hits: [] as string[] } }));
    await runAgent(memory, 'conv-root-only', looping, false);
    const spans = memory.getFinishedSpans();
    const traceId = spans[0]!.spanContext().traceId;
    // One request per span, in the order they ended: the root comes last, as exporters send it.
    for (const span of spans) {
      const body = ProtobufTraceSerializer.serializeRequest([span])!;
      const res = await fetch(`${collector.url}/v1/traces`, { method: 'POST', body, headers: { 'content-type': 'application/x-protobuf' } });
      expect(res.status).toBe(200);
    }
    const verdict = (await (await fetch(`${collector.url}/v1/runs/conv-root-only`)).json()) as Record<string, unknown>;
    expect(verdict).toMatchObject({ runKey: 'conv-root-only', toolCalls: 14, level: 'break', stopped: true });
    expect((await fetch(`${collector.url}/v1/runs/${traceId}`)).status).toBe(404);
    await waitFor(() => spansOf(upstream.accepted).filter((s) => s.name === 'execute_tool search' && attr(s, 'loopguard.level') === 'break').length >= 1);
    // The agent went on after its run was stopped: those calls are at break, but the break was decided once.
    expect((await breaks()) - before).toBe(1);
  });
});

describe('memory bounds from the detection options', () => {
  it('passes maxRuns to the engine and counts its evictions', async () => {
    const bounded = await startCollector({ listen: { host: '127.0.0.1', port: 0 }, detection: { maxRuns: 2 } }, { log: () => {} });
    try {
      for (const conversation of ['a', 'b', 'c', 'd']) {
        const memory = new InMemorySpanExporter();
        await runAgent(memory, `conv-${conversation}`, [{ args: { q: conversation }, result: { ok: true } }]);
        const body = ProtobufTraceSerializer.serializeRequest(memory.getFinishedSpans())!;
        const res = await fetch(`${bounded.url}/v1/traces`, { method: 'POST', body, headers: { 'content-type': 'application/x-protobuf' } });
        expect(res.status).toBe(200);
      }
      const metrics = await (await fetch(`${bounded.url}/metrics`)).text();
      expect(metrics).toContain('# TYPE loopguard_collector_runs_evicted_total counter\nloopguard_collector_runs_evicted_total 2\n');
      expect(metrics).toContain('loopguard_runs_active 2\n');
      expect((await fetch(`${bounded.url}/v1/runs/conv-a`)).status).toBe(404);
      expect((await fetch(`${bounded.url}/v1/runs/conv-d`)).status).toBe(200);
    } finally {
      await bounded.close();
    }
  });
});

describe('idle runs', () => {
  it('answers 200 for a finished run (its root span ended) and releases it after runTtlMs without new traffic', async () => {
    const idle = await startCollector({ listen: { host: '127.0.0.1', port: 0 }, detection: { runTtlMs: 1000 } }, { log: () => {} });
    try {
      const memory = new InMemorySpanExporter();
      await runAgent(memory, 'conv-idle', [{ args: { q: 'x' }, result: { ok: true } }]);
      const body = ProtobufTraceSerializer.serializeRequest(memory.getFinishedSpans())!;
      expect((await fetch(`${idle.url}/v1/traces`, { method: 'POST', body, headers: { 'content-type': 'application/x-protobuf' } })).status).toBe(200);
      // The root span has ended: the run is finished, and its verdict is still served until the run is evicted.
      expect((await fetch(`${idle.url}/v1/runs/conv-idle`)).status).toBe(200);
      // No span arrives from here on: eviction must not wait for one.
      const deadline = Date.now() + 5000;
      let status = 200;
      while (status === 200 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        status = (await fetch(`${idle.url}/v1/runs/conv-idle`)).status;
      }
      expect(status).toBe(404);
      const metrics = await (await fetch(`${idle.url}/metrics`)).text();
      expect(metrics).toContain('loopguard_collector_runs_evicted_total 1\n');
    } finally {
      await idle.close();
    }
  });
});

describe('values kept as keys are bounded', () => {
  it('caps tool-name and run-key lengths and the series per metric, keeping distinct values distinct', async () => {
    const capped = await startCollector(
      { listen: { host: '127.0.0.1', port: 0 }, limits: { maxKeyLength: 128, maxSeriesPerMetric: 20 } },
      { log: () => {} },
    );
    try {
      const longConversation = `conv-${'c'.repeat(5000)}`;
      const memory = new InMemorySpanExporter();
      const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
      const tracer = provider.getTracer('agent');
      for (let i = 0; i < 60; i++) {
        // Names differing only at their end, 20 KB each.
        const tool = `${'t'.repeat(20_000)}-${i}`;
        tracer
          .startSpan(`execute_tool ${i}`, {
            attributes: {
              'gen_ai.operation.name': 'execute_tool',
              'gen_ai.tool.name': tool,
              'gen_ai.conversation.id': longConversation,
              'gen_ai.tool.call.arguments': '{"q":1}',
              'gen_ai.tool.call.result': '{"ok":true}',
            },
          })
          .end();
      }
      await provider.forceFlush();
      const body = ProtobufTraceSerializer.serializeRequest(memory.getFinishedSpans())!;
      expect((await fetch(`${capped.url}/v1/traces`, { method: 'POST', body, headers: { 'content-type': 'application/x-protobuf' } })).status).toBe(200);

      const metrics = await (await fetch(`${capped.url}/metrics`)).text();
      const toolSeries = metrics.split('\n').filter((l) => l.startsWith('loopguard_tool_calls_total{'));
      expect(toolSeries.length).toBeLessThanOrEqual(20);
      expect(toolSeries.some((l) => l.includes('otel_metric_overflow="true"'))).toBe(true);
      const labels = [...metrics.matchAll(/gen_ai_tool_name="([^"]*)"/g)].map((m) => m[1]!);
      expect(labels.length).toBeGreaterThan(0);
      expect(Math.max(...labels.map((l) => l.length))).toBeLessThanOrEqual(128);
      // Shortened names stay distinct (a digest of the whole name ends each one).
      const toolLabels = toolSeries.map((l) => /gen_ai_tool_name="([^"]*)"/.exec(l)?.[1]).filter((l) => l !== undefined);
      expect(new Set(toolLabels).size).toBe(toolLabels.length);
      expect(toolLabels.length).toBeGreaterThan(10);
      expect(metrics.length).toBeLessThan(64 * 1024);
      // The verdict is found by the original (long) run key, and all 60 distinct tools were counted.
      const verdict = (await (await fetch(`${capped.url}/v1/runs/${encodeURIComponent(longConversation)}`)).json()) as Record<string, unknown>;
      expect(verdict.toolCalls).toBe(60);
      expect(String(verdict.runKey).length).toBeLessThanOrEqual(128);
    } finally {
      await capped.close();
    }
  });
});
