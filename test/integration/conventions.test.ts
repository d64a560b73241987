import { SpanStatusCode } from '@opentelemetry/api';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { isNotExecuted, LoopBreakError, type NotExecutedResult, type RunHandle } from '../../instrumentation/index.js';
import { createHarness, type Harness } from '../support/harness.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** Calls `read('same')` until the breaker stops the run; returns what each call gave back. */
async function loopUntilBroken(h: Harness): Promise<unknown[]> {
  const read = h.guard.wrapTool('read', async (_path: string) => 'same text');
  const out: unknown[] = [];
  for (let i = 0; i < 30; i++) {
    try {
      out.push(await read('same'));
    } catch (err) {
      out.push(err);
      if (err instanceof LoopBreakError) break;
    }
  }
  return out;
}

describe('types that tell the truth', () => {
  it('a wrapped tool resolves to its own result or a NotExecutedResult, which isNotExecuted tells apart', async () => {
    h = createHarness();
    const read = h.guard.wrapTool('read', async (_path: string) => 'same text');
    expectTypeOf(read).returns.resolves.toEqualTypeOf<string | NotExecutedResult>();
    const out = await h.guard.run('a', () => loopUntilBroken(h));
    const blocked = out.filter(isNotExecuted);
    expect(blocked.length).toBeGreaterThan(0);
    expect(out.filter((o) => typeof o === 'string').length).toBeGreaterThan(0);
    expect(isNotExecuted('same text')).toBe(false);
  });
});

describe('guard.run', () => {
  it('hands its function the run handle, whose verdict is still readable after the run', async () => {
    h = createHarness();
    let handle: RunHandle | undefined;
    await h.guard.run('ticket-42', async (run) => {
      handle = run;
      await loopUntilBroken(h);
    });
    expect(handle!.runKey).toBe(h.spans().find((s) => s.name === 'invoke_agent ticket-42')!.spanContext().traceId);
    expect(handle!.verdict()).toMatchObject({ runKey: handle!.runKey, stopped: true, level: 'break' });
    // Outside the run, the guard finds it by key.
    expect(h.guard.verdict(handle!.runKey)).toEqual(handle!.verdict());
  });

  it('names the run in loopguard.run.name; gen_ai.agent.name only carries an agent name given as such', async () => {
    h = createHarness();
    await h.guard.run('ticket-42', () => undefined);
    await h.guard.run('ticket-43', () => undefined, { agentName: 'support', conversationId: 'conv-7' });
    const [plain, named] = h.spans();
    expect(plain!.attributes['loopguard.run.name']).toBe('ticket-42');
    expect(plain!.attributes['gen_ai.agent.name']).toBeUndefined();
    expect(named!.attributes).toMatchObject({ 'loopguard.run.name': 'ticket-43', 'gen_ai.agent.name': 'support', 'gen_ai.conversation.id': 'conv-7' });
  });
});

describe('tool span conventions', () => {
  it('a refused call says it did not run, and the call that breaks the run fails with error.type LoopBreakError', async () => {
    h = createHarness();
    await h.guard.run('a', () => loopUntilBroken(h));
    const spans = h.toolSpans();
    const refused = spans.filter((s) => s.attributes['loopguard.action'] !== undefined && s.attributes['loopguard.action'] !== 'nudge');
    expect(refused.length).toBeGreaterThan(0);
    for (const s of refused) expect(s.attributes['loopguard.executed']).toBe(false);
    const ran = spans.filter((s) => s.attributes['loopguard.executed'] === undefined);
    expect(ran.length).toBeGreaterThan(0);
    const broken = spans.at(-1)!;
    expect(broken.attributes['loopguard.action']).toBe('break');
    expect(broken.status.code).toBe(SpanStatusCode.ERROR);
    expect(broken.attributes['error.type']).toBe('LoopBreakError');
  });
});
