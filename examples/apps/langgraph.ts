/** LangGraph `createReactAgent` on LangChain's FakeListChatModel, guarded by `register()` alone. */
import { AIMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { z } from 'zod';
import { LOOP_ORDER_ID, runApp, setUpApp } from './support.js';

const app = setUpApp('langchain');

const queryOrder = tool(async ({ order_id }) => JSON.stringify({ order_id, status: order_id === 'A-1' ? 'shipped' : 'not_found' }), {
  name: 'query_order',
  description: 'Look an order up by id',
  schema: z.object({ order_id: z.string() }),
});

/** Answers with the scripted tool calls (JSON), then with a final text. */
class ScriptedModel extends FakeListChatModel {
  override _formatGeneration(text: string) {
    const call = text.startsWith('{') ? (JSON.parse(text) as { name: string; args: Record<string, unknown>; id: string }) : undefined;
    return { message: new AIMessage({ content: call ? '' : text, tool_calls: call ? [{ type: 'tool_call' as const, ...call }] : [] }), text };
  }
  override bindTools(): this {
    return this;
  }
}
const call = (order_id: string, i: number) => JSON.stringify({ name: 'query_order', args: { order_id }, id: `call_${i}` });
const agent = (responses: string[]) => createReactAgent({ llm: new ScriptedModel({ responses }), tools: [queryOrder] });
const input = { messages: [{ role: 'user', content: 'Where is my order?' }] };

await runApp(
  app,
  () => agent(Array.from({ length: 20 }, (_, i) => call(LOOP_ORDER_ID, i))).invoke(input, { recursionLimit: 100 }),
  () => agent([call('A-1', 1), call('A-2', 2), call('A-3', 3), 'Order A-1 has shipped.']).invoke(input, { recursionLimit: 100 }),
);
