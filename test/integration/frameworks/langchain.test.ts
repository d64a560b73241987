import { tool } from '@langchain/core/tools';
import { DynamicTool } from '@langchain/core/tools';
import { ToolMessage } from '@langchain/core/messages';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { LoopEvent } from '../../../instrumentation/index.js';
import { LangChainInstrumentation } from '../../../instrumentation/adapters/langchain/instrumentation.js';
import { LoopBreakError } from '../../../src/breaker.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { ScriptedToolCallingModel } from './support/langchain-model.js';
import { exploringSearch, firstSteps, referenceSteps, repeatedSearch, type ScriptedCall } from './support/trajectory.js';

let instrumentation: LangChainInstrumentation;
let h: Harness;
let events: LoopEvent[];

function useGuard(options: Parameters<typeof createHarness>[0] = {}) {
  events = [];
  h = createHarness({ ...options, onLoop: (e) => void events.push(e) });
  instrumentation.setConfig({ guard: h.guard });
}

beforeAll(async () => {
  instrumentation = new LangChainInstrumentation({ guard: createHarness().guard });
  await instrumentation.ready;
});
afterAll(() => instrumentation.disable());

function agentFor(calls: ScriptedCall[], llm = new ScriptedToolCallingModel(calls)) {
  const results = new Map(calls.map((c) => [JSON.stringify(c.args), c.result]));
  const search = tool(async (args: { query: string }) => results.get(JSON.stringify(args)) ?? 'no result', {
    name: 'search',
    description: 'search the web',
    schema: z.object({ query: z.string() }),
  });
  return createReactAgent({ llm, tools: [search] });
}

describe('LangChain.js / LangGraph.js adapter', () => {
  it('routes a tool called by ToolNode through the guard: the span carries loopguard attributes and the call id', async () => {
    useGuard();
    const agent = agentFor(exploringSearch(2));
    await h.guard.run('lc', () => agent.invoke({ messages: [{ role: 'user', content: 'weather?' }] }));
    const spans = h.toolSpans();
    expect(spans).toHaveLength(2);
    for (const [i, span] of spans.entries()) {
      expect(span.name).toBe('execute_tool search');
      expect(span.attributes['gen_ai.tool.call.id']).toBe(`call_${i + 1}`);
      expect(span.attributes['loopguard.args.hash']).toMatch(/^[0-9a-f]{16}$/);
      expect(span.attributes['loopguard.result.hash']).toMatch(/^[0-9a-f]{16}$/);
      expect(span.attributes['loopguard.step']).toBe(i + 1);
      expect(span.attributes['loopguard.outcome']).toBe('ok');
      expect(span.attributes['loopguard.framework']).toBe('langchain');
    }
    await h.close();
  });

  it('detects a loop at the same steps as the same trajectory through wrapTool, blocks with a ToolMessage, and stops the graph with LoopBreakError', async () => {
    const calls = repeatedSearch(12);
    const reference = await referenceSteps(calls);
    expect(reference.warning).toBeDefined();
    expect(reference.break).toBeDefined();

    useGuard();
    const llm = new ScriptedToolCallingModel(calls);
    const agent = agentFor(calls, llm);
    const run = h.guard.run('lc-loop', () => agent.invoke({ messages: [{ role: 'user', content: 'weather?' }] }));
    const err = await run.then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(LoopBreakError);
    expect(firstSteps(events)).toEqual(reference);

    // What the model read: the nudge appended to a real result, then the blocked call's message.
    expect(llm.prompts[reference.warning!]).toContain('[loopguard warning]');
    expect(llm.prompts[reference.critical!]).toContain('NOT executed');
    expect(llm.prompts).toHaveLength(reference.break!);
    const blocked = h.toolSpans().filter((s) => s.attributes['loopguard.action'] === 'block');
    expect(blocked).toHaveLength(reference.break! - reference.critical!);
    await h.close();
  });

  it('a blocked call answers with the tool output format: a ToolMessage the model reads, not an exception', async () => {
    useGuard();
    const calls = repeatedSearch(12);
    const search = tool(async () => 'Sunny, 21°C', { name: 'search', description: 'search', schema: z.object({ query: z.string() }) });
    const outputs: unknown[] = [];
    await h.guard.run('lc-direct', async () => {
      for (const [i, c] of calls.entries()) {
        try {
          outputs.push(await search.invoke({ type: 'tool_call', id: `call_${i}`, name: 'search', args: c.args }));
        } catch (e) {
          outputs.push(e);
          break;
        }
      }
    });
    const messages = outputs.filter((o): o is ToolMessage => o instanceof ToolMessage);
    const notExecuted = messages.filter((m) => typeof m.content === 'string' && !m.content.startsWith('Sunny'));
    const nudged = messages.filter((m) => typeof m.content === 'string' && m.content.startsWith('Sunny') && m.content.length > 'Sunny, 21°C'.length);
    expect(nudged.length).toBeGreaterThan(0);
    expect(notExecuted.length).toBeGreaterThan(0);
    expect(notExecuted[0]!.tool_call_id).toMatch(/^call_/);
    expect(outputs.at(-1)).toBeInstanceOf(LoopBreakError);
    await h.close();
  });

  it('guards DynamicTool (string input) as well', async () => {
    useGuard();
    const echo = new DynamicTool({ name: 'echo', description: 'echo', func: async (s: string) => `echo ${s}` });
    await h.guard.run('lc-dyn', () => echo.invoke('hello'));
    expect(h.toolSpans().map((s) => s.name)).toEqual(['execute_tool echo']);
    await h.close();
  });

  it('a normal multi-step run produces no verdict', async () => {
    useGuard();
    const agent = agentFor(exploringSearch(8));
    const out = await h.guard.run('lc-ok', () => agent.invoke({ messages: [{ role: 'user', content: 'weather?' }] }));
    expect(out.messages.at(-1)?.content).toBe('done');
    expect(events).toEqual([]);
    expect(h.toolSpans()).toHaveLength(8);
    await h.close();
  });
});
