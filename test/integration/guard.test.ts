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
