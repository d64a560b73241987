import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  LoopBreakError,
  ToolCallBlockedError,
  setToolOutcome,
  type LoopEvent,
  type NotExecutedResult,
} from '../../instrumentation/index.js';
import { createHarness, type Harness } from '../support/harness.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const HEX16 = /^[0-9a-f]{16}$/;

/** A search tool that never finds the order: the customer-service loop of the field reports. */
function notFoundTool() {
  const calls = { n: 0 };
  const fn = async (args: { order_id: string }) => {
    calls.n++;
    setToolOutcome('empty');
    return { status: 'not_found', order_id: args.order_id };
  };
  return { fn, calls };
}

describe('tool spans', () => {
  it('names spans per the GenAI conventions and writes the loopguard attributes', async () => {
    h = createHarness();
    const search = h.guard.wrapTool('search', async (args: { q: string }) => ({ hits: [args.q] }));
    await h.guard.run('support', async () => {
      await search({ q: 'a' });
      await h.guard.callTool('read', { path: 'x' }, () => 'content', { callId: 'call_7' });
    });
    const [first, second] = h.toolSpans();
    const root = h.spans().find((s) => s.name === 'invoke_agent support')!;
    expect(first!.name).toBe('execute_tool search');
    expect(first!.kind).toBe(SpanKind.INTERNAL);
    expect(first!.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(first!.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'search',
      'loopguard.step': 1,
      'loopguard.outcome': 'ok',
    });
    expect(first!.attributes['loopguard.args.hash']).toMatch(HEX16);
    expect(first!.attributes['loopguard.result.hash']).toMatch(HEX16);
    expect(first!.attributes['loopguard.call.fingerprint']).toBe(`search:${first!.attributes['loopguard.args.hash']}`);
    expect(first!.attributes['loopguard.level']).toBeUndefined();
    expect(second!.attributes).toMatchObject({ 'gen_ai.tool.call.id': 'call_7', 'loopguard.step': 2 });
    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'loopguard.run.tool_calls': 2,
      'loopguard.run.stopped': false,
      'loopguard.run.detections': 0,
    });
    expect(root.attributes['loopguard.run.max_level']).toBeUndefined();
  });

  it('fingerprints arguments independently of key order', async () => {
    h = createHarness();
    await h.guard.run('agent', async () => {
      await h.guard.callTool('t', { a: 1, b: { c: 2, d: 3 } }, () => 1);
      await h.guard.callTool('t', { b: { d: 3, c: 2 }, a: 1 }, () => 1);
    });
    const [a, b] = h.toolSpans();
    expect(a!.attributes['loopguard.args.hash']).toBe(b!.attributes['loopguard.args.hash']);
  });

  it('records a tool failure as error.type, an error status and the error outcome, and rethrows the same error', async () => {
    h = createHarness();
    const boom = new TypeError('bad input');
    const thrown = await h.guard
      .run('agent', () =>
        h.guard.callTool('t', {}, () => {
          throw boom;
        }),
      )
      .catch((e: unknown) => e);
    expect(thrown).toBe(boom);
    const [span] = h.toolSpans();
    expect(span!.status.code).toBe(SpanStatusCode.ERROR);
    expect(span!.attributes).toMatchObject({ 'error.type': 'TypeError', 'loopguard.outcome': 'error' });
  });
});

describe('the breaker', () => {
  it('nudges on the second repeat, on the span where the verdict was reached', async () => {
    const events: LoopEvent[] = [];
    h = createHarness({ onLoop: (e) => void events.push(e) });
    const { fn } = notFoundTool();
    const query = h.guard.wrapTool('query_order', fn);
    const results: unknown[] = [];
    await h.guard.run('support', async () => {
      for (let i = 0; i < 3; i++) results.push(await query({ order_id: 'A-1' }));
    });
    const spans = h.toolSpans();
    expect(spans.map((s) => s.attributes['loopguard.level'])).toEqual([undefined, undefined, 'warning']);
    expect(spans[0]!.events).toHaveLength(0);
    const event = spans[2]!.events.find((e) => e.name === 'loopguard.loop_detected')!;
    expect(event.attributes).toEqual({
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
    expect(events[0]!.nudge).toContain('3 times');
    expect(events[0]!.nudge).toContain('--- loop state ---');
    // The model sees the nudge in the result it reads.
    expect(results[2]).toMatchObject({ status: 'not_found', loopguard_notice: events[0]!.nudge });
    expect(results[1]).not.toHaveProperty('loopguard_notice');
  });

  it('appends the nudge to string results, and leaves results alone when told to', async () => {
    h = createHarness();
    const read = h.guard.wrapTool('read', async (_path: string) => 'same text');
    const out: unknown[] = [];
    await h.guard.run('a', async () => {
      for (let i = 0; i < 3; i++) out.push(await read('f'));
    });
    expect(out[2]).toMatch(/^same text\n\n\[loopguard warning\]/);
    await h.close();

    h = createHarness({ appendNudge: false });
    const quiet = h.guard.wrapTool('read', async (_path: string) => 'same text');
    const plain: unknown[] = [];
    await h.guard.run('a', async () => {
      for (let i = 0; i < 3; i++) plain.push(await quiet('f'));
    });
    expect(plain[2]).toBe('same text');
  });

  it('throttles repeated warnings', async () => {
    const onLoop = vi.fn();
    h = createHarness({ onLoop });
    const { fn } = notFoundTool();
    const query = h.guard.wrapTool('query_order', fn);
    await h.guard.run('a', async () => {
      for (let i = 0; i < 4; i++) await query({ order_id: 'A-1' });
    });
    const spans = h.toolSpans();
    expect(spans.map((s) => s.attributes['loopguard.level'])).toEqual([undefined, undefined, 'warning', 'warning']);
    expect(spans[3]!.events).toHaveLength(0);
    expect(onLoop).toHaveBeenCalledTimes(1);
  });

  it('blocks the repeat without executing it, then stops the run and refuses every later call', async () => {
    const events: LoopEvent[] = [];
    h = createHarness({ onLoop: (e) => void events.push(e) });
    const { fn, calls } = notFoundTool();
    const query = h.guard.wrapTool('query_order', fn);
    const other = vi.fn(async () => 'other');
    const otherTool = h.guard.wrapTool('other', other);
    const results: unknown[] = [];
    let caught: unknown;
    await h.guard
      .run('support', async () => {
        for (let i = 0; i < 20; i++) results.push(await query({ order_id: 'A-1' }));
      })
      .catch((e: unknown) => {
        caught = e;
      });
    expect(caught).toBeInstanceOf(LoopBreakError);
    const err = caught as LoopBreakError;
    expect(err.code).toBe('LOOPGUARD_LOOP_BREAK');
    expect(err.detector).toBe('no-progress');
    expect(err.reason).toBe('no-progress');
    expect(err.evidence).toMatchObject({ detector: 'no-progress', period: 1, since: 1 });
    expect(err.traceId).toMatch(/^[0-9a-f]{32}$/);

    const spans = h.toolSpans();
    const levels = spans.map((s) => s.attributes['loopguard.level']);
    expect(levels).toEqual([undefined, undefined, 'warning', 'warning', 'critical', 'critical', 'critical', 'break']);
    // Calls 5..8 never ran: four executions only.
    expect(calls.n).toBe(4);
    expect(spans[4]!.attributes['loopguard.action']).toBe('block');
    const blocked = results[4] as NotExecutedResult;
    expect(blocked.status).toBe('not_executed');
    expect(blocked.message).toContain('NOT executed');
    expect(events.map((e) => `${e.step}:${e.level}:${e.action}`)).toEqual(['3:warning:nudge', '5:critical:block', '6:critical:block', '7:critical:block', '8:break:break']);

    // The run stays stopped: a different tool is refused too, and not executed.
    await expect(h.guard.run('ignored', () => otherTool()).then(() => 'new run ok')).resolves.toBe('new run ok');
    const root = h.spans().find((s) => s.name === 'invoke_agent support')!;
    expect(root.attributes).toMatchObject({
      'loopguard.run.stopped': true,
      'loopguard.run.stop_reason': 'no-progress',
      'loopguard.run.max_level': 'break',
      'loopguard.run.tool_calls': 8,
    });
    expect(root.attributes['loopguard.run.detections']).toBe(5);
  });

  it('refuses every later call of a stopped run, whatever the tool', async () => {
    h = createHarness();
    const { fn } = notFoundTool();
    const query = h.guard.wrapTool('query_order', fn);
    const other = vi.fn(async () => 'other');
    const otherTool = h.guard.wrapTool('other', other);
    const errors: unknown[] = [];
    await h.guard.run('support', async () => {
      for (let i = 0; i < 8; i++) await query({ order_id: 'A-1' }).catch((e: unknown) => errors.push(e));
      await otherTool().catch((e: unknown) => errors.push(e));
    });
    expect(errors).toHaveLength(2);
    expect(errors[1]).toBeInstanceOf(LoopBreakError);
    expect(other).not.toHaveBeenCalled();
    const last = h.toolSpans().at(-1)!;
    expect(last.name).toBe('execute_tool other');
    expect(last.attributes).toMatchObject({ 'loopguard.level': 'break', 'loopguard.action': 'break' });
  });

  it('throws ToolCallBlockedError instead of a synthetic result when configured', async () => {
    h = createHarness({ onBlock: 'throw' });
    const { fn } = notFoundTool();
    const query = h.guard.wrapTool('query_order', fn);
    const errors: unknown[] = [];
    await h.guard.run('a', async () => {
      for (let i = 0; i < 5; i++) await query({ order_id: 'A-1' }).catch((e: unknown) => errors.push(e));
    });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(ToolCallBlockedError);
    expect((errors[0] as ToolCallBlockedError).code).toBe('LOOPGUARD_TOOL_CALL_BLOCKED');
    expect((errors[0] as ToolCallBlockedError).step).toBe(5);
  });

  it('lets onLoop override: continue executes a blocked call, break stops at a warning; async answers count', async () => {
    h = createHarness({ onLoop: async (e) => (e.level === 'critical' ? 'continue' : undefined) });
    const { fn, calls } = notFoundTool();
    const query = h.guard.wrapTool('query_order', fn);
    await h.guard.run('a', async () => {
      for (let i = 0; i < 6; i++) await query({ order_id: 'A-1' });
    });
    expect(calls.n).toBe(6);
    await h.close();

    h = createHarness({ onLoop: (e) => (e.level === 'warning' ? 'break' : undefined) });
    const second = notFoundTool();
    const q2 = h.guard.wrapTool('query_order', second.fn);
    const err = await h.guard
      .run('a', async () => {
        for (let i = 0; i < 6; i++) await q2({ order_id: 'A-1' });
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LoopBreakError);
    expect((err as LoopBreakError).reason).toBe('onLoop');
    expect(second.calls.n).toBe(3);
    const root = h.spans().find((s) => s.name === 'invoke_agent a')!;
    expect(root.attributes['loopguard.run.stop_reason']).toBe('onLoop');
  });
});

describe('loopguard never breaks the host', () => {
  it('an onLoop that throws is logged and the default action applies', async () => {
    h = createHarness({
      onLoop: () => {
        throw new Error('callback bug');
      },
    });
    const { fn } = notFoundTool();
    const query = h.guard.wrapTool('query_order', fn);
    const results: unknown[] = [];
    await h.guard.run('a', async () => {
      for (let i = 0; i < 5; i++) results.push(await query({ order_id: 'A-1' }));
    });
    expect((results[4] as NotExecutedResult).status).toBe('not_executed');
  });

  it('a classifier that throws does not fail the call', async () => {
    h = createHarness({
      classifyResult: () => {
        throw new Error('classifier bug');
      },
    });
    const out = await h.guard.run('a', () => h.guard.callTool('t', {}, () => 'value'));
    expect(out).toBe('value');
  });

  it('arguments JSON cannot hold degrade to a safe fingerprint', async () => {
    h = createHarness();
    const cyclic: Record<string, unknown> = { big: 10n, fn: () => 1, sym: Symbol('s'), when: new Date(0), buf: Buffer.from('hi') };
    cyclic.self = cyclic;
    const huge = { blob: 'x'.repeat(10 * 1024 * 1024) };
    const out = await h.guard.run('a', async () => [
      await h.guard.callTool('t', cyclic, () => 'ok'),
      await h.guard.callTool('t', huge, () => 'ok'),
      await h.guard.callTool('t', new Map([[1, new Set([2])]]), () => 'ok'),
    ]);
    expect(out).toEqual(['ok', 'ok', 'ok']);
    for (const s of h.toolSpans()) expect(s.attributes['loopguard.args.hash']).toMatch(HEX16);
  });

  it('calls outside any run are executed, not tracked, and the user is told once how to open a run', async () => {
    h = createHarness();
    const warnings: Error[] = [];
    const listener = (w: Error) => warnings.push(w);
    process.on('warning', listener);
    try {
      for (let i = 0; i < 5; i++) expect(await h.guard.callTool('lonely', { same: true }, () => 'r')).toBe('r');
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', listener);
    }
    const ours = warnings.filter((w) => (w as Error & { code?: string }).code === 'LOOPGUARD_NO_RUN');
    expect(ours).toHaveLength(1);
    expect(ours[0]!.message).toContain('guard.run');
    expect(h.toolSpans().every((s) => s.attributes['loopguard.step'] === undefined)).toBe(true);
  });
});

describe('runs', () => {
  it('treats traces with the same conversation id as one run', async () => {
    h = createHarness();
    const { fn } = notFoundTool();
    const query = h.guard.wrapTool('query_order', fn);
    for (let turn = 0; turn < 3; turn++) {
      await h.guard.run('chat', () => query({ order_id: 'A-1' }), { conversationId: 'conv-42' });
    }
    const spans = h.toolSpans();
    expect(spans.map((s) => s.attributes['loopguard.step'])).toEqual([1, 2, 3]);
    expect(spans[2]!.attributes['loopguard.level']).toBe('warning');
    expect(h.guard.verdict('conv-42')).toMatchObject({ runKey: 'conv-42', toolCalls: 3, level: 'warning', stopped: false });
  });

  it('answers the verdict of the run the caller is in', async () => {
    h = createHarness();
    const verdict = await h.guard.run('a', async () => {
      await h.guard.callTool('t', { x: 1 }, () => 1);
      return h.guard.verdict();
    });
    expect(verdict).toMatchObject({ toolCalls: 1, level: null, stopped: false, stopReason: null });
  });
});

describe('foreign tool spans', () => {
  it('annotates GenAI execute_tool spans another instrumentation made', async () => {
    h = createHarness();
    const tracer = h.provider.getTracer('other-instrumentation');
    await h.guard.run('a', async () => {
      for (let i = 0; i < 3; i++) {
        const span = tracer.startSpan('execute_tool lookup', {
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': 'lookup',
            'gen_ai.tool.call.arguments': '{"id":"A-1"}',
            'gen_ai.tool.call.result': '{"found":false,"value":"x"}',
          },
        });
        span.end();
      }
    });
    const spans = h.toolSpans();
    expect(spans).toHaveLength(3);
    expect(spans[0]!.attributes['loopguard.args.hash']).toMatch(HEX16);
    expect(spans[0]!.attributes['loopguard.input']).toBe('full');
    expect(spans.map((s) => s.attributes['loopguard.step'])).toEqual([1, 2, 3]);
    expect(spans[2]!.attributes['loopguard.level']).toBe('warning');
  });
});

describe('metrics', () => {
  it('records tool calls, detections, stopped runs and active runs', async () => {
    h = createHarness();
    const { fn } = notFoundTool();
    const query = h.guard.wrapTool('query_order', fn);
    await h.guard
      .run('a', async () => {
        for (let i = 0; i < 8; i++) await query({ order_id: 'A-1' });
      })
      .catch(() => undefined);
    const m = await h.metrics();
    const calls = m.get('loopguard.tool_calls')!;
    expect(calls).toContainEqual({ attributes: { 'gen_ai.tool.name': 'query_order', outcome: 'empty' }, value: 8 });
    const detections = m.get('loopguard.detections')!;
    expect(detections).toContainEqual({ attributes: { detector: 'no-progress', level: 'warning', 'gen_ai.tool.name': 'query_order' }, value: 1 });
    expect(detections).toContainEqual({ attributes: { detector: 'no-progress', level: 'critical', 'gen_ai.tool.name': 'query_order' }, value: 3 });
    expect(detections).toContainEqual({ attributes: { detector: 'no-progress', level: 'break', 'gen_ai.tool.name': 'query_order' }, value: 1 });
    expect(m.get('loopguard.runs.stopped')).toEqual([{ attributes: { reason: 'no-progress' }, value: 1 }]);
    expect(m.get('loopguard.runs.active')![0]!.value).toBe(1);
  });
});
