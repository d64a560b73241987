/**
 * Tool spans loopguard did not create, from real instrumentations and no
 * loopguard adapter: the processor recognises them through the dialect
 * readers, fingerprints them and runs detection on them.
 */
import { OpenTelemetry } from '@ai-sdk/otel';
import { LangChainInstrumentation as OpenInferenceLangChain } from '@arizeai/openinference-instrumentation-langchain';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { tool as langchainTool } from '@langchain/core/tools';
import * as ai7 from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import * as ai6 from 'ai-v6';
import { MockLanguageModelV3 } from 'ai-v6/test';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHarness, type Harness } from '../../support/harness.js';
import { scriptedDoGenerate } from './support/ai-sdk-model.js';
import { referenceSteps, repeatedSearch } from './support/trajectory.js';

let h: Harness;
afterEach(async () => h?.close());

/** The steps at which the processor first annotated each level on the foreign spans. */
function annotatedSteps(spans: ReadableSpan[]): { warning?: number; critical?: number; break?: number } {
  const out: Record<string, number> = {};
  for (const s of spans) {
    const level = s.attributes['loopguard.level'];
    const step = s.attributes['loopguard.step'];
    if (typeof level === 'string' && typeof step === 'number' && out[level] === undefined) out[level] = step;
  }
  return out;
}

const byStart = (a: ReadableSpan, b: ReadableSpan) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1];

describe('foreign tool spans through the processor', () => {
  it('ai@6 built-in telemetry (ai.toolCall): detected at the wrapTool steps, marked as fully read', async () => {
    const calls = repeatedSearch(10);
    const reference = await referenceSteps(calls);
    h = createHarness();
    const search = ai6.tool({ inputSchema: z.object({ query: z.string() }), execute: async () => 'Sunny, 21°C' });
    await h.guard.run('ai6-telemetry', () =>
      ai6.generateText({
        model: new MockLanguageModelV3({ doGenerate: scriptedDoGenerate(calls) }),
        tools: { search },
        stopWhen: ai6.stepCountIs(20),
        prompt: 'p',
        experimental_telemetry: { isEnabled: true, tracer: h.provider.getTracer('ai') },
      }),
    );
    const spans = h.spans().filter((s) => s.name === 'ai.toolCall').sort(byStart);
    expect(spans).toHaveLength(10);
    expect(spans.every((s) => s.attributes['loopguard.input'] === 'full')).toBe(true);
    expect(spans.map((s) => s.attributes['loopguard.step'])).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(annotatedSteps(spans).warning).toBe(reference.warning);
    expect(spans.some((s) => s.events.some((e) => e.name === 'loopguard.loop_detected'))).toBe(true);
  });

  it('ai@6 telemetry with recordInputs/recordOutputs off: the span says name_only', async () => {
    h = createHarness();
    const calls = repeatedSearch(3);
    const search = ai6.tool({ inputSchema: z.object({ query: z.string() }), execute: async () => 'Sunny' });
    await h.guard.run('ai6-name-only', () =>
      ai6.generateText({
        model: new MockLanguageModelV3({ doGenerate: scriptedDoGenerate(calls) }),
        tools: { search },
        stopWhen: ai6.stepCountIs(10),
        prompt: 'p',
        experimental_telemetry: { isEnabled: true, tracer: h.provider.getTracer('ai'), recordInputs: false, recordOutputs: false },
      }),
    );
    const spans = h.spans().filter((s) => s.name === 'ai.toolCall');
    expect(spans).toHaveLength(3);
    expect(spans.every((s) => s.attributes['loopguard.input'] === 'name_only')).toBe(true);
  });

  it('ai@7 with @ai-sdk/otel (GenAI execute_tool spans)', async () => {
    const calls = repeatedSearch(10);
    const reference = await referenceSteps(calls);
    h = createHarness();
    const search = ai7.tool({ inputSchema: z.object({ query: z.string() }), execute: async () => 'Sunny, 21°C' });
    await h.guard.run('ai7-otel', () =>
      ai7.generateText({
        model: new MockLanguageModelV4({ doGenerate: scriptedDoGenerate(calls) as never }),
        tools: { search },
        stopWhen: ai7.isStepCount(20),
        prompt: 'p',
        telemetry: { integrations: [new OpenTelemetry({ tracer: h.provider.getTracer('ai') })] },
      } as never),
    );
    const spans = h.toolSpans();
    expect(spans).toHaveLength(10);
    expect(spans[0]!.attributes['loopguard.input']).toBe('full');
    expect(annotatedSteps(spans).warning).toBe(reference.warning);
  });

  it('OpenInference LangChain.js TOOL spans', async () => {
    const calls = repeatedSearch(10);
    const reference = await referenceSteps(calls);
    h = createHarness();
    const openinference = new OpenInferenceLangChain({ tracerProvider: h.provider });
    openinference.manuallyInstrument(CallbackManagerModule);
    const search = langchainTool(async () => 'Sunny, 21°C', { name: 'search', description: 'search', schema: z.object({ query: z.string() }) });
    await h.guard.run('openinference', async () => {
      for (const [i, c] of calls.entries()) await search.invoke({ type: 'tool_call', id: `call_${i}`, name: 'search', args: c.args });
    });
    openinference.disable();
    const spans = h.spans().filter((s) => s.attributes['openinference.span.kind'] === 'TOOL').sort(byStart);
    expect(spans).toHaveLength(10);
    expect(spans[0]!.attributes['loopguard.input']).toBe('full');
    expect(annotatedSteps(spans).warning).toBe(reference.warning);
  });
});
