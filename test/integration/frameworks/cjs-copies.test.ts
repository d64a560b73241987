/**
 * The CommonJS builds of the frameworks are separate copies of their classes
 * (dual packages): a CJS app gets them from `require`, which the adapters
 * patch through require-in-the-middle when the module is first required.
 * These tests require the CJS builds exactly as a CJS app would.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../../instrumentation/index.js';
import { frameworkInstrumentations, frameworksReady, type FrameworkInstrumentation } from '../../../instrumentation/adapters/index.js';
import { createHarness, type Harness } from '../../support/harness.js';

const require = createRequire(import.meta.url);
let h: Harness;
let events: LoopEvent[];
let adapters: FrameworkInstrumentation[];

beforeAll(async () => {
  events = [];
  h = createHarness({ onLoop: (e) => void events.push(e) });
  adapters = frameworkInstrumentations(h.guard, { frameworks: ['langchain', 'mcp', 'openai-agents'] });
  await frameworksReady(adapters);
});
afterAll(async () => {
  for (const a of adapters) a.disable();
  await h.close();
});

describe('CommonJS copies of the frameworks', () => {
  it('LangChain: a tool from require("@langchain/core/tools") is guarded', async () => {
    const { tool } = require('@langchain/core/tools') as typeof import('@langchain/core/tools');
    const { z } = require('zod') as typeof import('zod');
    const echo = tool(async ({ text }: { text: string }) => text, { name: 'cjs_echo', description: 'echo', schema: z.object({ text: z.string() }) });
    await h.guard.run('cjs-lc', () => echo.invoke({ text: 'hi' }));
    expect(h.toolSpans().filter((s) => s.name === 'execute_tool cjs_echo')).toHaveLength(1);
  });

  it('MCP: Client from require("@modelcontextprotocol/sdk/client/index.js") is guarded', async () => {
    const { Client } = require('@modelcontextprotocol/sdk/client/index.js') as typeof import('@modelcontextprotocol/sdk/client/index.js');
    const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js') as typeof import('@modelcontextprotocol/sdk/server/mcp.js');
    const { InMemoryTransport } = require('@modelcontextprotocol/sdk/inMemory.js') as typeof import('@modelcontextprotocol/sdk/inMemory.js');
    const server = new McpServer({ name: 's', version: '1.0.0' });
    server.registerTool('cjs_ping', { description: 'ping' }, async () => ({ content: [{ type: 'text', text: 'pong' }] }));
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'c', version: '1.0.0' });
    await Promise.all([server.connect(b), client.connect(a)]);
    await h.guard.run('cjs-mcp', () => client.callTool({ name: 'cjs_ping', arguments: {} }));
    await client.close();
    await server.close();
    expect(h.toolSpans().filter((s) => s.name === 'tools/call cjs_ping')).toHaveLength(1);
  });

  it('OpenAI Agents: an Agent from require("@openai/agents") has its function tools guarded', async () => {
    const agents = require('@openai/agents') as typeof import('@openai/agents');
    const { z } = require('zod') as typeof import('zod');
    agents.setTracingDisabled(true);
    const ping = agents.tool({ name: 'cjs_agent_ping', description: 'ping', parameters: z.object({}), execute: async () => 'pong' });
    let turn = 0;
    const model = {
      async getResponse() {
        turn += 1;
        const usage = new agents.Usage();
        return turn === 1
          ? { usage, output: [{ type: 'function_call' as const, callId: 'c1', name: 'cjs_agent_ping', arguments: '{}', status: 'completed' as const }] }
          : { usage, output: [{ type: 'message' as const, role: 'assistant' as const, status: 'completed' as const, content: [{ type: 'output_text' as const, text: 'ok' }] }] };
      },
      async *getStreamedResponse(): AsyncIterable<never> {
        throw new Error('not streamed');
      },
    };
    const agent = new agents.Agent({ name: 'a', model, tools: [ping] });
    await h.guard.run('cjs-agents', () => agents.run(agent, 'go'));
    expect(h.toolSpans().filter((s) => s.name === 'execute_tool cjs_agent_ping')).toHaveLength(1);
  });
});

describe('CommonJS build of ai@6', () => {
  it('require("ai") is patched so that a break stops generateText and rejects it with LoopBreakError', async () => {
    const { AiSdkInstrumentation } = await import('../../../instrumentation/adapters/ai-sdk/instrumentation.js');
    const { LoopBreakError } = await import('../../../src/breaker.js');
    const { scriptedDoGenerate } = await import('./support/ai-sdk-model.js');
    const { repeatedSearch } = await import('./support/trajectory.js');
    // The alias this repository installs ai@6 under; an app would use the default, 'ai'.
    const instrumentation = new AiSdkInstrumentation({ guard: h.guard, aiModules: ['ai-v6'] });
    try {
      const ai = require('ai-v6') as typeof import('ai-v6');
      const { MockLanguageModelV3 } = require('ai-v6/test') as typeof import('ai-v6/test');
      const { z } = require('zod') as typeof import('zod');
      const calls = repeatedSearch(30);
      const search = ai.tool({ inputSchema: z.object({ query: z.string() }), execute: async () => 'Sunny, 21°C' });
      const err = await h.guard
        .run('cjs-ai6', () => ai.generateText({ model: new MockLanguageModelV3({ doGenerate: scriptedDoGenerate(calls) }), tools: { search }, stopWhen: ai.stepCountIs(30), prompt: 'p' }))
        .then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(LoopBreakError);
    } finally {
      instrumentation.disable();
    }
  });
});
