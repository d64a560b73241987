/** OpenAI Agents SDK `run()` with a scripted model (the package ships no fake one), guarded by `register()` alone. */
import { Agent, Usage, run, setTracingDisabled, tool, type Model, type ModelRequest, type ModelResponse } from '@openai/agents';
import { z } from 'zod';
import { LOOP_ORDER_ID, runApp, setUpApp } from './support.js';

setTracingDisabled(true);
const app = setUpApp('openai-agents');

/** Answers each turn with the next scripted order id to look up, then with a final message. */
class ScriptedModel implements Model {
  private turn = 0;
  constructor(private readonly orderIds: string[]) {}
  async getResponse(_request: ModelRequest): Promise<ModelResponse> {
    const id = this.orderIds[this.turn++];
    const usage = new Usage({ requests: 1, inputTokens: 10, outputTokens: 5, totalTokens: 15 });
    if (id === undefined) return { usage, output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done' }] }] };
    return { usage, output: [{ type: 'function_call', callId: `call_${this.turn}`, name: 'query_order', arguments: JSON.stringify({ order_id: id }), status: 'completed' }] };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('this model answers getResponse only');
  }
}

const queryOrder = tool({
  name: 'query_order',
  description: 'Look an order up by id',
  parameters: z.object({ order_id: z.string() }),
  execute: async ({ order_id }) => JSON.stringify({ order_id, status: order_id === 'A-1' ? 'shipped' : 'not_found' }),
});
const agent = (orderIds: string[]) => new Agent({ name: 'support', instructions: 'Help the customer.', model: new ScriptedModel(orderIds), tools: [queryOrder] });

await runApp(
  app,
  () => run(agent(Array.from({ length: 20 }, () => LOOP_ORDER_ID)), 'Where is my order?', { maxTurns: 40 }),
  () => run(agent(['A-1', 'A-2', 'A-3']), 'Where is my order?', { maxTurns: 40 }),
);
