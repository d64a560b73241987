/** Vercel AI SDK 7 `generateText` on its own mock model, guarded by `register()` alone: each generation is a run. */
import { generateText, isStepCount, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { LOOP_ORDER_ID, runApp, setUpApp } from './support.js';

const app = setUpApp('ai-sdk');

const usage = { inputTokens: { total: 50, noCache: 50, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 10, text: 10, reasoning: undefined } };
/** Asks for each scripted order id in turn, then answers in text. */
function model(orderIds: string[]) {
  let turn = 0;
  return new MockLanguageModelV4({
    doGenerate: (async () => {
      const id = orderIds[turn++];
      if (id === undefined) return { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
      return {
        content: [{ type: 'tool-call', toolCallId: `call_${turn}`, toolName: 'query_order', input: JSON.stringify({ order_id: id }) }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      };
    }) as never,
  });
}
const queryOrder = tool({
  description: 'Look an order up by id',
  inputSchema: z.object({ order_id: z.string() }),
  execute: async ({ order_id }: { order_id: string }) => ({ order_id, status: order_id === 'A-1' ? 'shipped' : 'not_found' }),
});
const generate = (orderIds: string[]) =>
  generateText({ model: model(orderIds), tools: { query_order: queryOrder }, stopWhen: isStepCount(40), prompt: 'Where is my order?' } as never);

await runApp(
  app,
  () => generate(Array.from({ length: 20 }, () => LOOP_ORDER_ID)),
  () => generate(['A-1', 'A-2', 'A-3']),
);
