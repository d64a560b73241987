import { StructuredTool } from '@langchain/core/tools';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Agent } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import { frameworkInstrumentations, frameworksReady } from '../../../instrumentation/adapters/index.js';
import { LoopGuardConfigError } from '../../../src/options.js';
import { createHarness } from '../../support/harness.js';

const integrations = () => (globalThis as { AI_SDK_TELEMETRY_INTEGRATIONS?: unknown[] }).AI_SDK_TELEMETRY_INTEGRATIONS ?? [];

describe('frameworkInstrumentations', () => {
  it('enables every adapter once per guard, and disabling them restores the frameworks', async () => {
    const h = createHarness();
    const originals = { call: StructuredTool.prototype.call, callTool: Client.prototype.callTool, getAllTools: Agent.prototype.getAllTools };
    const adapters = frameworkInstrumentations(h.guard);
    await frameworksReady(adapters);
    expect(adapters.map((a) => a.instrumentationName)).toEqual([
      'loopguard-instrumentation-ai-sdk',
      'loopguard-instrumentation-langchain',
      'loopguard-instrumentation-mcp',
      'loopguard-instrumentation-openai-agents',
    ]);
    expect(frameworkInstrumentations(h.guard)).toEqual(adapters);
    expect(integrations()).toHaveLength(1);
    expect(StructuredTool.prototype.call).not.toBe(originals.call);
    expect(Client.prototype.callTool).not.toBe(originals.callTool);
    expect(Agent.prototype.getAllTools).not.toBe(originals.getAllTools);

    for (const a of adapters) a.disable();
    expect(integrations()).toHaveLength(0);
    expect(StructuredTool.prototype.call).toBe(originals.call);
    expect(Client.prototype.callTool).toBe(originals.callTool);
    expect(Agent.prototype.getAllTools).toBe(originals.getAllTools);
    await h.close();
  });

  it('enables only the frameworks asked for', async () => {
    const h = createHarness();
    const adapters = frameworkInstrumentations(h.guard, { frameworks: ['mcp'] });
    await frameworksReady(adapters);
    expect(adapters.map((a) => a.instrumentationName)).toEqual(['loopguard-instrumentation-mcp']);
    for (const a of adapters) a.disable();
    await h.close();
  });

  it('refuses to hand back an AI SDK adapter made for other modules than the ones asked for now', async () => {
    const h = createHarness();
    const adapters = frameworkInstrumentations(h.guard, { frameworks: ['ai-sdk'] });
    await frameworksReady(adapters);
    expect(() => frameworkInstrumentations(h.guard, { frameworks: ['ai-sdk'], aiModules: ['ai-v6'] })).toThrow(LoopGuardConfigError);
    expect(() => frameworkInstrumentations(h.guard, { frameworks: ['ai-sdk'], aiModules: ['ai-v6'] })).toThrow(/aiModules/);
    expect(frameworkInstrumentations(h.guard, { frameworks: ['ai-sdk'] })).toEqual(adapters);
    for (const a of adapters) a.disable();
    await h.close();
  });
});
