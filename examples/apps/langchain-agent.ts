/** LangChain v1 `createAgent` on its FakeToolCallingModel, guarded by `register()` alone. */
import { createAgent, FakeToolCallingModel, tool } from 'langchain';
import { z } from 'zod';
import { LOOP_ORDER_ID, runApp, setUpApp } from './support.js';

const app = setUpApp('langchain');

const queryOrder = tool(async ({ order_id }) => JSON.stringify({ order_id, status: order_id === 'A-1' ? 'shipped' : 'not_found' }), {
  name: 'query_order',
  description: 'Look an order up by id',
  schema: z.object({ order_id: z.string() }),
});
/** One model turn per order id (a query_order call), then a final answer without tool calls. */
const agent = (orderIds: string[]) =>
  createAgent({
    model: new FakeToolCallingModel({ toolCalls: [...orderIds.map((order_id, i) => [{ name: 'query_order', args: { order_id }, id: `call_${i}` }]), []] }),
    tools: [queryOrder],
  });
const input = { messages: [{ role: 'user' as const, content: 'Where is my order?' }] };

await runApp(
  app,
  () => agent(Array.from({ length: 20 }, () => LOOP_ORDER_ID)).invoke(input, { recursionLimit: 100 }),
  () => agent(['A-1', 'A-2', 'A-3']).invoke(input, { recursionLimit: 100 }),
);
