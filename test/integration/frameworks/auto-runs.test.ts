/**
 * Invocations outside any run open one by themselves, keyed by the
 * framework's own thread id where it has one; inside a run they join it.
 */
import { tool } from '@langchain/core/tools';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LangChainInstrumentation } from '../../../instrumentation/adapters/langchain/instrumentation.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { ScriptedToolCallingModel } from './support/langchain-model.js';
import { exploringSearch } from './support/trajectory.js';

let instrumentation: LangChainInstrumentation;
let h: Harness;

beforeAll(async () => {
  h = createHarness();
  instrumentation = new LangChainInstrumentation({ guard: h.guard });
  await instrumentation.ready;
});
afterAll(async () => {
  instrumentation.disable();
  await h.close();
});

function agent() {
  const search = tool(async ({ query }: { query: string }) => `results for ${query}`, { name: 'search', description: 'search', schema: z.object({ query: z.string() }) });
  return createReactAgent({ llm: new ScriptedToolCallingModel(exploringSearch(2)), tools: [search], name: 'researcher' });
}
const input = { messages: [{ role: 'user', content: 'go' }] };

describe('runs opened by the invocation', () => {
  it('LangGraph invoke and stream each open a run keyed by the thread id; inside guard.run they join it', async () => {
    await agent().invoke(input, { configurable: { thread_id: 'thread-1' } });
    for await (const _chunk of await agent().stream(input, { configurable: { thread_id: 'thread-2' } })) void _chunk;
    await h.guard.run('outer', () => agent().invoke(input));
    const roots = h.spans().filter((s) => s.attributes['gen_ai.operation.name'] === 'invoke_agent');
    expect(roots.map((r) => [r.attributes['loopguard.run.name'], r.attributes['gen_ai.conversation.id']])).toEqual([
      ['researcher', 'thread-1'],
      ['researcher', 'thread-2'],
      ['outer', undefined],
    ]);
    // Every tool call belongs to one of them.
    const traces = new Set(roots.map((r) => r.spanContext().traceId));
    expect(h.toolSpans()).toHaveLength(6);
    for (const s of h.toolSpans()) expect(traces.has(s.spanContext().traceId)).toBe(true);
  });
});
