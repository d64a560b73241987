import { generateText, stepCountIs, tool, ToolLoopAgent } from 'ai-v6';
import { MockLanguageModelV3 } from 'ai-v6/test';
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
  instrumentation.setConfig({ guard: h.guard, aiModules: ['ai-v6'] });
}

beforeAll(async () => {
  // ai@6 is installed here under the alias `ai-v6` (ai@7 is `ai`).
  instrumentation = new AiSdkInstrumentation({ guard: createHarness().guard, aiModules: ['ai-v6'] });
  await instrumentation.ready;
});
afterAll(() => instrumentation.disable());

function searchTool(calls: ScriptedCall[]) {
  const answer = answersFor(calls);
  return tool({ description: 'search the web', inputSchema: z.object({ query: z.string() }), execute: async ({ query }) => answer(query) });
}

type Part = { type: string; error?: unknown; output?: unknown };

describe('AI SDK 6 adapter', () => {
  it('guards generateText tool calls through the global telemetry integration', async () => {
    useGuard();
    const calls = exploringSearch(2);
    const result = await h.guard.run('ai6', () =>
      generateText({ model: new MockLanguageModelV3({ doGenerate: scriptedDoGenerate(calls) }), tools: { search: searchTool(calls) }, stopWhen: stepCountIs(10), prompt: 'weather?' }),
    );
    expect(result.text).toBe('done');
    const spans = h.toolSpans();
    expect(spans.map((s) => s.attributes['gen_ai.tool.call.id'])).toEqual(['call_1', 'call_2']);
    expect(spans[1]!.attributes['loopguard.step']).toBe(2);
    await h.close();
  });

  it('detects the loop at the wrapTool steps; the model reads the nudge and the "not executed" result; a ToolLoopAgent is stopped with LoopBreakError', async () => {
    const calls = repeatedSearch(12);
    const reference = await referenceSteps(calls);
    useGuard();
    const model = new MockLanguageModelV3({ doGenerate: scriptedDoGenerate(calls) });
    const agent = new ToolLoopAgent({ model, tools: { search: searchTool(calls) } });
    const steps: Array<{ content: Part[] }> = [];
    const err = await h.guard
      .run('ai6-agent', () => agent.generate({ prompt: 'weather?', onStepFinish: (s) => void steps.push(s as never) }))
      .then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(LoopBreakError);
    expect(firstSteps(events)).toEqual(reference);
    const outputs = steps.flatMap((s) => s.content.filter((p) => p.type === 'tool-result').map((p) => p.output));
    expect(outputs.some((o) => typeof o === 'string' && o.startsWith('Sunny, 21°C\n\n[loopguard'))).toBe(true);
    expect(outputs.filter((o) => (o as { status?: string }).status === 'not_executed')).toHaveLength(reference.break! - reference.critical!);
    // The loop ended at the breaking step: no model call after it.
    expect(steps).toHaveLength(reference.break!);
    const prompts = model.doGenerateCalls.map((c) => JSON.stringify(c.prompt));
    expect(prompts[reference.warning!]).toContain('[loopguard warning]');
    expect(prompts[reference.critical!]).toContain('not_executed');
    expect(prompts).toHaveLength(reference.break!);
    await h.close();
  });

  it('without module hooks, a plain generateText sees the break as a tool error and every later call refused', async () => {
    useGuard();
    const calls = repeatedSearch(12);
    const result = await h.guard.run('ai6-gen', () =>
      generateText({ model: new MockLanguageModelV3({ doGenerate: scriptedDoGenerate(calls) }), tools: { search: searchTool(calls) }, stopWhen: stepCountIs(20), prompt: 'weather?' }),
    );
    const errors = result.steps.flatMap((s) => (s.content as Part[]).filter((p) => p.type === 'tool-error').map((p) => p.error));
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((e) => e instanceof LoopBreakError)).toBe(true);
    await h.close();
  });

  it('a normal multi-step run produces no verdict', async () => {
    useGuard();
    const calls = exploringSearch(8);
    const result = await h.guard.run('ai6-ok', () =>
      generateText({ model: new MockLanguageModelV3({ doGenerate: scriptedDoGenerate(calls) }), tools: { search: searchTool(calls) }, stopWhen: stepCountIs(20), prompt: 'weather?' }),
    );
    expect(result.text).toBe('done');
    expect(events).toEqual([]);
    await h.close();
  });
});
