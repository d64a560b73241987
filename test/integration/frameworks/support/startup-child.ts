/**
 * Child process of startup.test.ts: an app that calls `register()` and runs
 * its agents at once, without `await guard.ready`. Prints one JSON line per
 * framework: how many times the tool really ran, how many tool spans the
 * guard made (every attempt, blocked ones included), and how the run ended.
 */
import { AIMessage } from '@langchain/core/messages';
import { tool as lcTool } from '@langchain/core/tools';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { Agent, run, setTracingDisabled, tool as agentsTool } from '@openai/agents';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { isLoopBreak, register } from '../../../../instrumentation/index.js';
import { ScriptedAgentsModel } from './agents-model.js';
import { repeatedSearch } from './trajectory.js';

setTracingDisabled(true);
const exporter = new InMemorySpanExporter();
const guard = register({ exporter, instrumentations: { frameworks: ['langchain', 'openai-agents'] } });
const outcome: Record<string, { executed: number; toolSpans: number; ended: string }> = {};
const toolSpans = () => exporter.getFinishedSpans().filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool').length;
const ending = (e: unknown) => (isLoopBreak(e) ? 'loop break' : e instanceof Error ? e.name : 'returned');

let executed = 0;
const search = lcTool(
  async () => {
    executed++;
    return 'nothing found';
  },
  { name: 'search', description: 'search', schema: z.object({ query: z.string() }) },
);
class StubbornModel extends FakeListChatModel {
  override _formatGeneration(text: string) {
    return { message: new AIMessage({ content: '', tool_calls: [{ type: 'tool_call' as const, name: 'search', args: { query: 'same' }, id: text }] }), text };
  }
  override bindTools(): this {
    return this;
  }
}
const graph = createReactAgent({ llm: new StubbornModel({ responses: Array.from({ length: 20 }, (_, i) => `call_${i}`) }), tools: [search] });
let ended = await guard.run('langgraph', () => graph.invoke({ messages: [{ role: 'user', content: 'go' }] }, { recursionLimit: 100 })).then(ending, ending);
await guard.flush();
outcome.langgraph = { executed, toolSpans: toolSpans(), ended };

exporter.reset();
executed = 0;
const agentsSearch = agentsTool({
  name: 'search',
  description: 'search',
  parameters: z.object({ query: z.string() }),
  execute: async () => {
    executed++;
    return 'nothing found';
  },
});
const agent = new Agent({ name: 'researcher', instructions: 'answer', model: new ScriptedAgentsModel(repeatedSearch(20)), tools: [agentsSearch] });
ended = await guard.run('agents', () => run(agent, 'go', { maxTurns: 30 })).then(ending, ending);
await guard.flush();
outcome['openai-agents'] = { executed, toolSpans: toolSpans(), ended };

await guard.shutdown();
console.log(JSON.stringify(outcome));
