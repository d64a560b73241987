/**
 * Vercel AI SDK 6 (installed here as `ai-v6`): a ToolLoopAgent driven by the
 * SDK's own MockLanguageModelV3. In ai@6 loopguard wraps the tools it is
 * handed through the global telemetry integration: the model reads the
 * nudge in the tool result and a `not_executed` result for blocked calls,
 * and the break ends the agent's loop and rejects `agent.generate`.
 */
import { ToolLoopAgent, tool } from 'ai-v6';
import { MockLanguageModelV3 } from 'ai-v6/test';
import { z } from 'zod';
import { conclude, setUp } from './support/example.js';

const example = await setUp('ai-sdk (ai@6)', 'ai-sdk', ['ai-v6']);

const usage = { inputTokens: { total: 50, noCache: 50, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 10, text: 10, reasoning: undefined } };
let turn = 0;
const model = new MockLanguageModelV3({
  doGenerate: async () => {
    turn += 1;
    return {
      content: [{ type: 'tool-call', toolCallId: `call_${turn}`, toolName: 'query_order', input: '{"order_id":"A-10492"}' }],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage,
      warnings: [],
    };
  },
});

const queryOrder = tool({
  description: 'Look an order up by id',
  inputSchema: z.object({ order_id: z.string() }),
  execute: async ({ order_id }) => {
    const result = { order_id, status: 'not_found' };
    example.executed(`query_order(${order_id})`, result);
    return result;
  },
});

const agent = new ToolLoopAgent({ model, tools: { query_order: queryOrder } });
const error = await example.guard.run('support-agent', () => agent.generate({ prompt: 'Where is my order A-10492?' })).then(() => undefined, (e: unknown) => e);
await conclude(example, error);
