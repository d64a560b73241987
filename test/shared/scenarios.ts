/**
 * The behaviour loopguard promises inside any OpenTelemetry tracer provider,
 * written once and run against each host: the root project's SDK 2.x
 * provider and the SDK 3.x provider of test/compat/sdk3.
 *
 * This module has no run-time imports on purpose. Each host passes in its
 * own copy of loopguard, its own provider harness and its own vitest, so
 * every module the scenarios touch resolves inside that host's install (one
 * @opentelemetry/api instance, one vitest runner). The types below describe
 * only what the scenarios use, structurally, so both the source tree and the
 * packed package satisfy them.
 */
import type { afterEach, describe, expect, it } from 'vitest';

type Outcome = 'ok' | 'empty' | 'error' | 'pending';
type Level = 'warning' | 'critical' | 'break';

/** What the scenarios read of a finished span: SDK 2.x and 3.x `ReadableSpan`s both fit. */
export interface FinishedSpan {
  readonly name: string;
  readonly kind: number;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly events: ReadonlyArray<{ readonly name: string; readonly attributes?: Readonly<Record<string, unknown>> }>;
  readonly status: { readonly code: number; readonly message?: string };
  readonly parentSpanContext?: { readonly spanId: string };
  spanContext(): { traceId: string; spanId: string };
}

export interface LoopEventView {
  level: Level;
  action: 'nudge' | 'block' | 'break';
  detector: string;
  nudge: string;
  tool: string;
  step: number;
  runKey: string;
}

export interface GuardView {
  run<T>(name: string, fn: () => T | Promise<T>, options?: { conversationId?: string }): Promise<T>;
  wrapTool<F extends (...args: never[]) => unknown>(name: string, fn: F): (...args: Parameters<F>) => Promise<Awaited<ReturnType<F>> | { status: 'not_executed' }>;
  callTool(tool: string, args: unknown, execute: () => unknown, info?: { callId?: string }): Promise<unknown>;
  verdict(runKey?: string):
    | { runKey: string; toolCalls: number; level: Level | null; detections: number; stopped: boolean; stopReason: string | null }
    | undefined;
}

export interface HarnessOptions {
  onLoop?: (event: LoopEventView) => void;
  appendNudge?: boolean;
}

/**
 * A tracer provider of the host's SDK with the loopguard processor and an
 * in-memory exporter, attached through `register({ tracerProvider, processor })`.
 */
export interface ScenarioHarness {
  guard: GuardView;
  provider: {
    getTracer(name: string): {
      startSpan(name: string, options?: { attributes?: Record<string, string | number | boolean> }): { end(): void };
    };
  };
  spans(): FinishedSpan[];
  /** Tool spans in start order. */
  toolSpans(): FinishedSpan[];
  close(): Promise<void>;
}

export interface VerdictErrorView extends Error {
  readonly code: string;
  readonly reason: string;
  readonly detector: string;
  readonly evidence: { detector: string; period: number; since: number } | undefined;
  readonly traceId: string;
  readonly step: number;
}

/** The parts of the `loopguard` entry point the scenarios use. */
export interface LoopGuardEntry {
  LoopBreakError: abstract new (...args: never[]) => VerdictErrorView;
  setToolOutcome(outcome: Outcome): void;
}

export interface ScenarioHost {
  /** Shown in the suite name, e.g. "OpenTelemetry SDK 3.x". */
  name: string;
  loopguard: LoopGuardEntry;
  createHarness(options?: HarnessOptions): ScenarioHarness;
  vitest: { describe: typeof describe; it: typeof it; expect: typeof expect; afterEach: typeof afterEach };
}

const HEX16 = /^[0-9a-f]{16}$/;
const SPAN_KIND_INTERNAL = 0;
const STATUS_ERROR = 2;

export function defineLoopGuardScenarios(host: ScenarioHost): void {
  const { describe, it, expect, afterEach } = host.vitest;
  const { LoopBreakError, setToolOutcome } = host.loopguard;

  let h: ScenarioHarness | undefined;
  const harness = (options?: HarnessOptions): ScenarioHarness => (h = host.createHarness(options));
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  /** A search that never finds the order: the customer-service loop of the field reports. */
  function notFoundTool() {
    const calls = { n: 0 };
    const fn = async (args: { order_id: string }) => {
      calls.n++;
      setToolOutcome('empty');
      return { status: 'not_found', order_id: args.order_id };
    };
    return { fn, calls };
  }

  function rootSpan(g: ScenarioHarness, agent: string): FinishedSpan {
    const root = g.spans().find((s) => s.name === `invoke_agent ${agent}`);
    expect(root, `root span "invoke_agent ${agent}"`).toBeDefined();
    return root!;
  }

  describe(`loopguard in ${host.name}`, () => {
    it('names tool spans per the GenAI conventions, writes loopguard.* attributes and summarises the run on its root span', async () => {
      const g = harness();
      const search = g.guard.wrapTool('search', async (args: { q: string }) => ({ hits: [args.q] }));
      await g.guard.run('support', async () => {
        await search({ q: 'a' });
        await g.guard.callTool('read', { path: 'x' }, () => 'content', { callId: 'call_7' });
      });
      const [first, second] = g.toolSpans();
      const root = rootSpan(g, 'support');
      expect(first!.name).toBe('execute_tool search');
      expect(first!.kind).toBe(SPAN_KIND_INTERNAL);
      expect(first!.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
      expect(first!.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'search',
        'loopguard.step': 1,
        'loopguard.outcome': 'ok',
      });
      expect(first!.attributes['loopguard.args.hash']).toMatch(HEX16);
      expect(first!.attributes['loopguard.result.hash']).toMatch(HEX16);
      expect(first!.attributes['loopguard.call.fingerprint']).toBe(`search:${String(first!.attributes['loopguard.args.hash'])}`);
      expect(first!.attributes['loopguard.level']).toBeUndefined();
      expect(second!.name).toBe('execute_tool read');
      expect(second!.attributes).toMatchObject({ 'gen_ai.tool.call.id': 'call_7', 'loopguard.step': 2 });
      expect(root.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'loopguard.run.tool_calls': 2,
        'loopguard.run.detections': 0,
        'loopguard.run.stopped': false,
      });
      expect(root.attributes['loopguard.run.max_level']).toBeUndefined();
    });

    it('records a failing tool as error.type, an error status and the error outcome, and rethrows the same error', async () => {
      const g = harness();
      const boom = new TypeError('bad input');
      const thrown = await g.guard
        .run('agent', () =>
          g.guard.callTool('t', {}, () => {
            throw boom;
          }),
        )
        .catch((e: unknown) => e);
      expect(thrown).toBe(boom);
      const [span] = g.toolSpans();
      expect(span!.status.code).toBe(STATUS_ERROR);
      expect(span!.attributes).toMatchObject({ 'error.type': 'TypeError', 'loopguard.outcome': 'error' });
    });

    it('nudges on the span that reached the warning, with the loopguard.loop_detected event and the nudge in the result', async () => {
      const events: LoopEventView[] = [];
      const g = harness({ onLoop: (e) => void events.push(e) });
      const query = g.guard.wrapTool('query_order', notFoundTool().fn);
      const results: unknown[] = [];
      await g.guard.run('support', async () => {
        for (let i = 0; i < 3; i++) results.push(await query({ order_id: 'A-1' }));
      });
      const spans = g.toolSpans();
      expect(spans.map((s) => s.attributes['loopguard.level'])).toEqual([undefined, undefined, 'warning']);
      expect(spans.map((s) => s.attributes['loopguard.outcome'])).toEqual(['empty', 'empty', 'empty']);
      expect(spans[0]!.events).toHaveLength(0);
      expect(spans[1]!.events).toHaveLength(0);
      const detected = spans[2]!.events.filter((e) => e.name === 'loopguard.loop_detected');
      expect(detected).toHaveLength(1);
      expect(detected[0]!.attributes).toEqual({
        'loopguard.detector': 'no-progress',
        'loopguard.level': 'warning',
        'loopguard.count': 3,
        'loopguard.period': 1,
        'loopguard.fingerprint': spans[2]!.attributes['loopguard.call.fingerprint'],
        'loopguard.action': 'nudge',
      });
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ level: 'warning', action: 'nudge', detector: 'no-progress', tool: 'query_order', step: 3 });
      expect(events[0]!.nudge).toContain('query_order');
      expect(results[2]).toMatchObject({ status: 'not_found', loopguard_notice: events[0]!.nudge });
      expect(results[1]).not.toHaveProperty('loopguard_notice');
      expect(rootSpan(g, 'support').attributes).toMatchObject({
        'loopguard.run.max_level': 'warning',
        'loopguard.run.detections': 1,
        'loopguard.run.stopped': false,
      });
    });

    it('blocks the repeat with a synthetic not-executed result, breaks with LoopBreakError and refuses every later call', async () => {
      const events: LoopEventView[] = [];
      const g = harness({ onLoop: (e) => void events.push(e) });
      const { fn, calls } = notFoundTool();
      const query = g.guard.wrapTool('query_order', fn);
      let otherRan = false;
      const other = g.guard.wrapTool('other', async () => {
        otherRan = true;
        return 'other';
      });
      const results: unknown[] = [];
      let refused: unknown;
      const caught = await g.guard
        .run('support', async () => {
          try {
            for (let i = 0; i < 20; i++) results.push(await query({ order_id: 'A-1' }));
          } finally {
            refused = await other().catch((e: unknown) => e);
          }
        })
        .catch((e: unknown) => e);

      expect(caught).toBeInstanceOf(LoopBreakError);
      const err = caught as VerdictErrorView;
      expect(err.code).toBe('LOOPGUARD_LOOP_BREAK');
      expect(err.detector).toBe('no-progress');
      expect(err.reason).toBe('no-progress');
      expect(err.evidence).toMatchObject({ detector: 'no-progress', period: 1, since: 1 });
      expect(err.traceId).toMatch(/^[0-9a-f]{32}$/);

      const spans = g.toolSpans();
      expect(spans.map((s) => s.attributes['loopguard.level'])).toEqual([
        undefined,
        undefined,
        'warning',
        'warning',
        'critical',
        'critical',
        'critical',
        'break',
        'break',
      ]);
      // Calls 5 to 8 were blocked or broken before they ran.
      expect(calls.n).toBe(4);
      expect(spans[4]!.attributes['loopguard.action']).toBe('block');
      expect(results[4]).toMatchObject({ status: 'not_executed', reason: 'loop_detected' });
      expect((results[4] as { message: string }).message).toContain('NOT executed');
      expect(events.map((e) => `${e.step}:${e.level}:${e.action}`)).toEqual([
        '3:warning:nudge',
        '5:critical:block',
        '6:critical:block',
        '7:critical:block',
        '8:break:break',
      ]);
      const breakEvent = spans[7]!.events.find((e) => e.name === 'loopguard.loop_detected');
      expect(breakEvent?.attributes).toMatchObject({ 'loopguard.level': 'break', 'loopguard.action': 'break' });

      // A different tool in the stopped run is refused the same way, without running.
      expect(refused).toBeInstanceOf(LoopBreakError);
      expect(otherRan).toBe(false);
      expect(spans[8]!.name).toBe('execute_tool other');
      expect(spans[8]!.attributes).toMatchObject({ 'loopguard.level': 'break', 'loopguard.action': 'break' });

      expect(rootSpan(g, 'support').attributes).toMatchObject({
        'loopguard.run.stopped': true,
        'loopguard.run.stop_reason': 'no-progress',
        'loopguard.run.max_level': 'break',
        // Eight query_order calls and the refused one: refusals are calls the agent made.
        'loopguard.run.tool_calls': 9,
        'loopguard.run.detections': 5,
      });
      // The stop belongs to that run only.
      await expect(g.guard.run('next', () => other())).resolves.toBe('other');
    });

    it('finds the active run through the context manager, and joins traces that share a conversation id', async () => {
      const g = harness();
      const inside = await g.guard.run('a', async () => {
        await g.guard.callTool('t', { x: 1 }, () => 1);
        return g.guard.verdict();
      });
      expect(inside).toMatchObject({ toolCalls: 1, level: null, stopped: false, stopReason: null });

      const query = g.guard.wrapTool('query_order', notFoundTool().fn);
      for (let turn = 0; turn < 3; turn++) {
        await g.guard.run('chat', () => query({ order_id: 'A-1' }), { conversationId: 'conv-42' });
      }
      const turns = g.toolSpans().filter((s) => s.name === 'execute_tool query_order');
      expect(new Set(turns.map((s) => s.spanContext().traceId)).size).toBe(3);
      expect(turns.map((s) => s.attributes['loopguard.step'])).toEqual([1, 2, 3]);
      expect(turns[2]!.attributes['loopguard.level']).toBe('warning');
      expect(g.guard.verdict('conv-42')).toMatchObject({ runKey: 'conv-42', toolCalls: 3, level: 'warning', stopped: false });
    });

    it("annotates execute_tool spans another instrumentation made, as they end", async () => {
      const g = harness();
      const tracer = g.provider.getTracer('other-instrumentation');
      await g.guard.run('a', async () => {
        for (let i = 0; i < 3; i++) {
          tracer
            .startSpan('execute_tool lookup', {
              attributes: {
                'gen_ai.operation.name': 'execute_tool',
                'gen_ai.tool.name': 'lookup',
                'gen_ai.tool.call.arguments': '{"id":"A-1"}',
                'gen_ai.tool.call.result': '{"found":false,"value":"x"}',
              },
            })
            .end();
        }
      });
      const spans = g.toolSpans();
      expect(spans).toHaveLength(3);
      expect(spans[0]!.attributes['loopguard.args.hash']).toMatch(HEX16);
      expect(spans[0]!.attributes['loopguard.input']).toBe('full');
      expect(spans.map((s) => s.attributes['loopguard.step'])).toEqual([1, 2, 3]);
      expect(spans[2]!.attributes['loopguard.level']).toBe('warning');
      expect(spans[2]!.events.map((e) => e.name)).toEqual(['loopguard.loop_detected']);
    });
  });
}
