import { trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  LoopBreakError,
  ToolCallBlockedError,
  setToolOutcome,
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
  it('fingerprints arguments independently of key order', async () => {
    h = createHarness();
    await h.guard.run('agent', async () => {
      await h.guard.callTool('t', { a: 1, b: { c: 2, d: 3 } }, () => 1);
      await h.guard.callTool('t', { b: { d: 3, c: 2 }, a: 1 }, () => 1);
    });
    const [a, b] = h.toolSpans();
    expect(a!.attributes['loopguard.args.hash']).toBe(b!.attributes['loopguard.args.hash']);
  });

});

describe('one history entry whoever records the call', () => {
  it("a guarded call whose tool ends the guard's span itself is recorded once", async () => {
    h = createHarness();
    await h.guard.run('early-end', async () => {
      await h.guard.callTool('lookup', { id: 'ord-1' }, () => {
        trace.getActiveSpan()?.end();
        return { status: 'shipped' };
      });
      await h.guard.callTool('lookup', { id: 'ord-2' }, () => ({ status: 'queued' }));
    });
    expect(h.toolSpans().map((s) => s.attributes['loopguard.step'])).toEqual([1, 2]);
  });

  it("the guard's own call and another instrumentation's span of the same call are recorded alike", async () => {
    h = createHarness();
    const tracer = h.provider.getTracer('other-instrumentation');
    const calls: Array<[unknown, unknown]> = [
      [{ id: 'ord-1' }, []],
      [{ id: 'ord-2' }, { status: 'queued', jobId: 'job-1' }],
      [{ q: 'refund policy' }, 'The refund policy allows returns within thirty days of delivery, with the receipt.'],
      [{ q: 'refunds' }, 'The refund policy allows returns within thirty days of delivery, with the receipt.'],
    ];
    await h.guard.run('guarded', async () => {
      for (const [args, result] of calls) await h.guard.callTool('lookup', args, () => result);
    });
    await h.guard.run('foreign', async () => {
      for (const [args, result] of calls) {
        tracer.startActiveSpan('execute_tool lookup', (span) => {
          span.setAttributes({
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': 'lookup',
            'gen_ai.tool.call.arguments': JSON.stringify(args),
            'gen_ai.tool.call.result': JSON.stringify(result),
          });
          span.end();
        });
      }
    });
    const recorded = (s: { attributes: Record<string, unknown> }) =>
      ['loopguard.args.hash', 'loopguard.result.hash', 'loopguard.outcome', 'loopguard.args.shape_hash', 'loopguard.step'].map((k) => s.attributes[k]);
    const spans = h.toolSpans();
    expect(spans).toHaveLength(8);
    expect(spans.slice(4).map(recorded)).toEqual(spans.slice(0, 4).map(recorded));
    // The empty answer and the repeated answer carry a shape; the others need none.
    expect(spans.slice(0, 4).map((s) => s.attributes['loopguard.args.shape_hash'] !== undefined)).toEqual([true, false, false, true]);
  });

  it('a call whose arguments or result the caller was not shown is recorded like a span that lacks them', async () => {
    h = createHarness({ captureContent: true });
    const tracer = h.provider.getTracer('other-instrumentation');
    await h.guard.run('guarded', async () => {
      await h.guard.callTool('lookup', { id: 'ord-1' }, () => [], { argsUnseen: true });
      await h.guard.callTool('lookup', { id: 'ord-2' }, () => undefined, { resultUnseen: true });
    });
    await h.guard.run('foreign', async () => {
      const payloads = [{ 'gen_ai.tool.call.result': '[]' }, { 'gen_ai.tool.call.arguments': JSON.stringify({ id: 'ord-2' }) }];
      for (const payload of payloads) {
        tracer.startActiveSpan('execute_tool lookup', (span) => {
          span.setAttributes({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup', ...payload });
          span.end();
        });
      }
    });
    const recorded = (s: { attributes: Record<string, unknown> }) =>
      ['loopguard.args.hash', 'loopguard.outcome', 'loopguard.input', 'loopguard.args.shape_hash', 'loopguard.step'].map((k) => s.attributes[k]);
    const spans = h.toolSpans();
    expect(spans).toHaveLength(4);
    expect(spans.slice(2).map(recorded)).toEqual(spans.slice(0, 2).map(recorded));
    expect(spans.map((s) => s.attributes['loopguard.input'])).toEqual(['result', 'args', 'result', 'args']);
    expect(spans[0]!.attributes['loopguard.result.hash']).toBe(spans[2]!.attributes['loopguard.result.hash']);
    // A result nobody saw is an answer of its own: never empty, never the same as another.
    expect(spans[1]!.attributes['loopguard.outcome']).toBe('ok');
    expect(spans[1]!.attributes['loopguard.result.hash']).toMatch(HEX16);
    expect(spans[1]!.attributes['loopguard.result.hash']).not.toBe(spans[3]!.attributes['loopguard.result.hash']);
    // What was hidden from the caller is not captured either.
    expect(spans[0]!.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
    expect(spans[1]!.attributes['gen_ai.tool.call.result']).toBeUndefined();
    expect(spans[1]!.attributes['gen_ai.tool.call.arguments']).toBeDefined();
  });
});

describe('the breaker', () => {
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

  it("the guard's own failures and its users' hooks reach onInternalError, and the call goes on", async () => {
    const caught: unknown[] = [];
    const onLoopBug = new Error('onLoop bug');
    const classifierBug = new Error('classifier bug');
    h = createHarness({
      onInternalError: (e) => caught.push(e),
      onLoop: () => {
        throw onLoopBug;
      },
      classifyResult: () => {
        throw classifierBug;
      },
    });
    const results: unknown[] = [];
    await h.guard.run('a', async () => {
      for (let i = 0; i < 3; i++) results.push(await h.guard.callTool('read', { path: 'f' }, () => 'same text'));
    });
    expect(results[2]).toMatch(/^same text\n\n\[loopguard warning\]/);
    expect(caught).toContain(onLoopBug);
    expect(caught.filter((e) => e === classifierBug)).toHaveLength(3);
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
