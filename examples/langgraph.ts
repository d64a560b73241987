/**
 * LangGraph.js: a ReAct agent (`createReactAgent` + `ToolNode`) driven by
 * LangChain's own FakeListChatModel, scripted to keep asking for the status
 * of an order that does not exist. loopguard needs no change to the agent:
 * the nudge is appended to the ToolMessage the model reads, blocked calls
 * answer "not executed", and the break stops `graph.invoke`.
 */
import { AIMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { z } from 'zod';
import { conclude, setUp } from './support/example.js';

const example = await setUp('langgraph', 'langchain');

const queryOrder = tool(
  async ({ order_id }) => {
    const result = JSON.stringify({ order_id, status: 'not_found' });
    example.executed(`query_order(${order_id})`, result);
    return result;
  },
  { name: 'query_order', description: 'Look an order up by id', schema: z.object({ order_id: z.string() }) },
);

/** FakeListChatModel answering with tool calls: each scripted response is a JSON tool call. */
class StubbornModel extends FakeListChatModel {
  override _formatGeneration(text: string) {
    return { message: new AIMessage({ content: '', tool_calls: [{ type: 'tool_call' as const, ...(JSON.parse(text) as { name: string; args: Record<string, unknown>; id: string }) }] }), text };
  }
  override bindTools(): this {
    return this;
  }
}
const model = new StubbornModel({
  responses: Array.from({ length: 20 }, (_, i) => JSON.stringify({ name: 'query_order', args: { order_id: 'A-10492' }, id: `call_${i + 1}` })),
});

const agent = createReactAgent({ llm: model, tools: [queryOrder] });
const error = await example.guard
  .run('support-agent', () => agent.invoke({ messages: [{ role: 'user', content: 'Where is my order A-10492?' }] }, { recursionLimit: 100 }))
  .then(() => undefined, (e: unknown) => e);
await conclude(example, error);
