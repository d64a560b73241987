/**
 * OpenAI Agents SDK: an Agent with a function tool, run by the SDK's Runner
 * on a scripted model (the SDK's public `Model` interface; the package ships
 * no fake model and nothing here talks to OpenAI). The break reaches
 * `run()` as the SDK's ToolCallError carrying the LoopBreakError.
 */
import { Agent, ToolCallError, Usage, run, setTracingDisabled, tool } from '@openai/agents';
import type { Model, ModelResponse } from '@openai/agents';
import { z } from 'zod';
import { conclude, setUp } from './support/example.js';

// The SDK's own tracing would export to OpenAI's servers.
setTracingDisabled(true);
const example = await setUp('openai-agents', 'openai-agents');

const queryOrder = tool({
  name: 'query_order',
  description: 'Look an order up by id',
  parameters: z.object({ order_id: z.string() }),
  execute: async ({ order_id }) => {
    const result = JSON.stringify({ order_id, status: 'not_found' });
    example.executed(`query_order(${order_id})`, result);
    return result;
  },
});

/** Asks for the same order every turn. */
class StubbornModel implements Model {
  private turn = 0;
  async getResponse(): Promise<ModelResponse> {
    this.turn += 1;
    return {
      usage: new Usage({ requests: 1, inputTokens: 50, outputTokens: 10, totalTokens: 60 }),
      output: [{ type: 'function_call', callId: `call_${this.turn}`, name: 'query_order', arguments: '{"order_id":"A-10492"}', status: 'completed' }],
    };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('this example does not stream');
  }
}

const agent = new Agent({ name: 'support-agent', instructions: 'Help the customer.', model: new StubbornModel(), tools: [queryOrder] });
const error = await example.guard
  .run('support-agent', () => run(agent, 'Where is my order A-10492?', { maxTurns: 40 }))
  .then(() => undefined, (e: unknown) => e);
// The runner reports a tool failure it does not handle as ToolCallError; the LoopBreakError is inside.
await conclude(example, error instanceof ToolCallError ? error.error : error);
