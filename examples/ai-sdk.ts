/**
 * Vercel AI SDK 7: `generateText` with a tool, driven by the SDK's own
 * MockLanguageModelV4 scripted to repeat one tool call. loopguard joins as a
 * global telemetry integration: no code change, ESM or CJS. The nudge is
 * written into the tool result the model reads next, a blocked call reaches
 * the model as a tool error, and the break rejects `generateText` on its
 * next model call.
 */
import { generateText, isStepCount, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { conclude, setUp } from './support/example.js';

const example = await setUp('ai-sdk (ai@7)', 'ai-sdk');

const usage = { inputTokens: { total: 50, noCache: 50, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 10, text: 10, reasoning: undefined } };
let turn = 0;
const model = new MockLanguageModelV4({
  doGenerate: (async () => {
    turn += 1;
    return {
      content: [{ type: 'tool-call', toolCallId: `call_${turn}`, toolName: 'query_order', input: '{"order_id":"A-10492"}' }],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage,
      warnings: [],
    };
  }) as never,
});

const queryOrder = tool({
  description: 'Look an order up by id',
  inputSchema: z.object({ order_id: z.string() }),
  execute: async ({ order_id }: { order_id: string }) => {
    const result = { order_id, status: 'not_found' };
    example.executed(`query_order(${order_id})`, result);
    return result;
  },
});

const error = await example.guard
  .run('support-agent', () => generateText({ model, tools: { query_order: queryOrder }, stopWhen: isStepCount(40), prompt: 'Where is my order A-10492?' } as never))
  .then(() => undefined, (e: unknown) => e);
await conclude(example, error);
