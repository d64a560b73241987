/** Vercel AI SDK 6 `ToolLoopAgent` on its own mock model, guarded by `register()` alone: each `generate` is a run. */
import { ToolLoopAgent, tool } from 'ai-v6';
import { MockLanguageModelV3 } from 'ai-v6/test';
import { z } from 'zod';
import { LOOP_ORDER_ID, runApp, setUpApp } from './support.js';

const app = setUpApp('ai-sdk', ['ai-v6']);

const usage = { inputTokens: { total: 50, noCache: 50, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 10, text: 10, reasoning: undefined } };
/** Asks for each scripted order id in turn, then answers in text. */
function model(orderIds: string[]) {
  let turn = 0;
  return new MockLanguageModelV3({
    doGenerate: async () => {
      const id = orderIds[turn++];
      if (id === undefined) return { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
      return {
        content: [{ type: 'tool-call', toolCallId: `call_${turn}`, toolName: 'query_order', input: JSON.stringify({ order_id: id }) }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      };
    },
  });
}
const queryOrder = tool({
  description: 'Look an order up by id',
  inputSchema: z.object({ order_id: z.string() }),
  execute: async ({ order_id }) => ({ order_id, status: order_id === 'A-1' ? 'shipped' : 'not_found' }),
});
const agent = (orderIds: string[]) => new ToolLoopAgent({ model: model(orderIds), tools: { query_order: queryOrder } });

await runApp(
  app,
  () => agent(Array.from({ length: 20 }, () => LOOP_ORDER_ID)).generate({ prompt: 'Where is my order?' }),
  () => agent(['A-1', 'A-2', 'A-3']).generate({ prompt: 'Where is my order?' }),
);
