import { OpenTelemetry } from '@ai-sdk/otel';
import { generateText, isStepCount, tool, ToolLoopAgent } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { LoopEvent } from '../../../instrumentation/index.js';
import { AiSdkInstrumentation } from '../../../instrumentation/adapters/ai-sdk/instrumentation.js';
import { LoopBreakError } from '../../../src/breaker.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { answersFor, scriptedDoGenerate } from './support/ai-sdk-model.js';
import { exploringSearch, firstSteps, referenceSteps, repeatedSearch, type ScriptedCall } from './support/trajectory.js';

let instrumentation: AiSdkInstrumentation;
let h: Harness;
let events: LoopEvent[];

function useGuard() {
  events = [];
  h = createHarness({ onLoop: (e) => void events.push(e) });
  instrumentation.setConfig({ guard: h.guard });
}

beforeAll(async () => {
  instrumentation = new AiSdkInstrumentation({ guard: createHarness().guard, aiModules: [] });
  await instrumentation.ready;
});
afterAll(() => instrumentation.disable());

function searchTool(calls: ScriptedCall[]) {
  const answer = answersFor(calls);
  return tool({ description: 'search the web', inputSchema: z.object({ query: z.string() }), execute: async ({ query }: { query: string }) => answer(query) });
}

function generate(calls: ScriptedCall[], extra: Record<string, unknown> = {}, model = new MockLanguageModelV4({ doGenerate: scriptedDoGenerate(calls) as never })) {
  return generateText({
    model,
    tools: { search: searchTool(calls) },
    stopWhen: isStepCount(40),
    prompt: 'weather?',
    ...extra,
  } as never) as Promise<{ text: string; steps: Array<{ content: Array<{ type: string; error?: unknown; output?: unknown }> }> }>;
}

describe('AI SDK 7 adapter (global telemetry integration)', () => {
  it('guards tool execution with no code change: loopguard attributes, call id, and the real output hashed', async () => {
    useGuard();
    const result = await h.guard.run('ai7', () => generate(exploringSearch(2)));
    expect(result.text).toBe('done');
    const spans = h.toolSpans();
    expect(spans.map((s) => s.attributes['gen_ai.tool.call.id'])).toEqual(['call_1', 'call_2']);
    expect(spans[0]!.attributes['loopguard.framework']).toBe('ai-sdk');
    // Two different outputs: two different result hashes (the output really reached the guard).
    expect(spans[0]!.attributes['loopguard.result.hash']).not.toBe(spans[1]!.attributes['loopguard.result.hash']);
    await h.close();
  });

  it('detects the loop at the wrapTool steps; blocks reach the model as tool errors; the break rejects generateText', async () => {
    const calls = repeatedSearch(12);
    const reference = await referenceSteps(calls);
    useGuard();
    const steps: Array<{ content: Array<{ type: string; output?: unknown; error?: unknown }> }> = [];
    const model = new MockLanguageModelV4({ doGenerate: scriptedDoGenerate(calls) as never });
    const err = await h.guard
      .run('ai7-loop', () => generate(calls, { onStepFinish: (s: never) => void steps.push(s) }, model))
      .then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(LoopBreakError);
    expect(firstSteps(events)).toEqual(reference);
    // What the model read: the nudge in a real result, then tool errors carrying the "not executed" text.
    const parts = steps.flatMap((s) => s.content.filter((p) => p.type === 'tool-result' || p.type === 'tool-error'));
    expect(parts.some((p) => typeof p.output === 'string' && p.output.startsWith('Sunny, 21°C\n\n[loopguard warning]'))).toBe(true);
    const errors = parts.filter((p) => p.type === 'tool-error').map((p) => String((p.error as Error).message));
    expect(errors.slice(0, reference.break! - reference.critical!).every((m) => m.includes('NOT executed'))).toBe(true);
    // And the prompts the model actually got: the nudge after the warning step, the block after the first critical one.
    const prompts = model.doGenerateCalls.map((c) => JSON.stringify(c.prompt));
    expect(prompts[reference.warning!]).toContain('[loopguard warning]');
    expect(prompts[reference.critical!]).toContain('NOT executed');
    expect(prompts).toHaveLength(reference.break!);
    const actions = h.toolSpans().map((s) => s.attributes['loopguard.action'] ?? '-');
    expect(actions.filter((a) => a === 'block').length).toBe(reference.break! - reference.critical!);
    await h.close();
  });

  it('stops a ToolLoopAgent the same way', async () => {
    useGuard();
    const calls = repeatedSearch(30);
    const agent = new ToolLoopAgent({ model: new MockLanguageModelV4({ doGenerate: scriptedDoGenerate(calls) as never }), tools: { search: searchTool(calls) } } as never) as {
      generate(o: { prompt: string }): Promise<unknown>;
    };
    const err = await h.guard.run('ai7-agent', () => agent.generate({ prompt: 'weather?' })).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(LoopBreakError);
    await h.close();
  });

  it('with @ai-sdk/otel registered, its execute_tool span is judged instead of duplicated', async () => {
    useGuard();
    const otel = new OpenTelemetry({ tracer: h.provider.getTracer('ai') });
    const result = await h.guard.run('ai7-otel', () => generate(exploringSearch(2), { telemetry: { integrations: [instrumentation.integration(), otel] } }));
    expect(result.text).toBe('done');
    const tools = h.toolSpans();
    expect(tools).toHaveLength(2);
    expect(tools.map((s) => s.instrumentationScope.name)).toEqual(['ai', 'ai']);
    expect(tools.map((s) => s.attributes['loopguard.step'])).toEqual([1, 2]);
    expect(tools.every((s) => typeof s.attributes['loopguard.args.hash'] === 'string')).toBe(true);
    await h.close();
  });

  it('with @ai-sdk/otel registered, a loop is still detected at the wrapTool steps and stopped', async () => {
    const calls = repeatedSearch(12);
    const reference = await referenceSteps(calls);
    useGuard();
    const otel = new OpenTelemetry({ tracer: h.provider.getTracer('ai') });
    const err = await h.guard
      .run('ai7-otel-loop', () => generate(calls, { telemetry: { integrations: [instrumentation.integration(), otel] } }))
      .then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(LoopBreakError);
    expect(firstSteps(events)).toEqual(reference);
    expect(h.toolSpans().every((s) => s.instrumentationScope.name === 'ai')).toBe(true);
    await h.close();
  });

  it('a normal multi-step run produces no verdict', async () => {
    useGuard();
    const result = await h.guard.run('ai7-ok', () => generate(exploringSearch(8)));
    expect(result.text).toBe('done');
    expect(events).toEqual([]);
    expect(h.toolSpans()).toHaveLength(8);
    await h.close();
  });
});
