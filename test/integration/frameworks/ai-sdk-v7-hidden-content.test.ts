import { generateText, isStepCount, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { LoopEvent } from '../../../instrumentation/index.js';
import { AiSdkInstrumentation } from '../../../instrumentation/adapters/ai-sdk/instrumentation.js';
import { LoopBreakError } from '../../../src/breaker.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { answersFor, scriptedDoGenerate } from './support/ai-sdk-model.js';
import { exploringSearch, firstSteps, referenceSteps, repeatedSearch, type ScriptedCall } from './support/trajectory.js';

// ai@7 hands telemetry integrations filtered copies of its events when a call hides its inputs or outputs:
// the guard must read what it was not shown as unseen, not as an empty result or one shared argument list.

let instrumentation: AiSdkInstrumentation;
let h: Harness;
let events: LoopEvent[];

beforeAll(async () => {
  instrumentation = new AiSdkInstrumentation({ guard: createHarness().guard, aiModules: [] });
  await instrumentation.ready;
});
afterAll(() => instrumentation.disable());

function useGuard() {
  events = [];
  h = createHarness({ onLoop: (e) => void events.push(e) });
  instrumentation.setConfig({ guard: h.guard });
}

function generate(calls: ScriptedCall[], telemetry: Record<string, unknown>, execute: (query: string) => Promise<string> | string = answersFor(calls)) {
  const search = tool({ description: 'search', inputSchema: z.object({ query: z.string() }), execute: async ({ query }: { query: string }) => execute(query) });
  return generateText({
    model: new MockLanguageModelV4({ doGenerate: scriptedDoGenerate(calls) as never }),
    tools: { search },
    stopWhen: isStepCount(40),
    prompt: 'weather?',
    telemetry,
  } as never) as Promise<{ text: string }>;
}

const distinct = (values: unknown[]) => new Set(values).size;

/** A healthy run of 25 different calls, each with its own answer: no verdict whatever is hidden. */
async function healthyRun(name: string, telemetry: Record<string, unknown>) {
  useGuard();
  const result = await h.guard.run(name, () => generate(exploringSearch(25), telemetry));
  expect(result.text).toBe('done');
  expect(events).toEqual([]);
  const spans = h.toolSpans();
  expect(spans).toHaveLength(25);
  expect(distinct(spans.map((s) => s.attributes['loopguard.result.hash']))).toBe(25);
  return spans;
}

describe('ai@7 calls that hide tool content from telemetry', () => {
  it('recordOutputs: false: a healthy run of 25 different calls gets no verdict (hidden results are not empty)', async () => {
    const spans = await healthyRun('hidden-outputs', { recordOutputs: false });
    expect(spans.every((s) => s.attributes['loopguard.input'] === 'args')).toBe(true);
    expect(spans.every((s) => s.attributes['loopguard.outcome'] === 'ok')).toBe(true);
    expect(distinct(spans.map((s) => s.attributes['loopguard.args.hash']))).toBe(25);
    await h.close();
  });

  it('recordInputs: false: a healthy run of 25 different calls gets no verdict', async () => {
    const spans = await healthyRun('hidden-inputs', { recordInputs: false });
    expect(spans.every((s) => s.attributes['loopguard.input'] === 'result')).toBe(true);
    await h.close();
  });

  it('both hidden: only the tool name is known, and 25 calls get no verdict', async () => {
    const spans = await healthyRun('hidden-both', { recordInputs: false, recordOutputs: false });
    expect(spans.every((s) => s.attributes['loopguard.input'] === 'name_only')).toBe(true);
    await h.close();
  });

  it('recordInputs: false: the same answer over and over is still caught, at the steps wrapTool reaches', async () => {
    const calls = repeatedSearch(12);
    const reference = await referenceSteps(calls);
    useGuard();
    const err = await h.guard.run('hidden-inputs-loop', () => generate(calls, { recordInputs: false })).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(LoopBreakError);
    expect(firstSteps(events)).toEqual(reference);
    await h.close();
  });

  it('recordOutputs: false: identical calls are not judged by results nobody saw (a poll may be getting new ones)', async () => {
    useGuard();
    const result = await h.guard.run('hidden-outputs-same', () => generate(repeatedSearch(30), { recordOutputs: false }));
    expect(result.text).toBe('done');
    expect(events).toEqual([]);
    expect(h.toolSpans()).toHaveLength(30);
    await h.close();
  });

  it('recordOutputs: false: a call failing the same way again and again is still stopped (the error reaches the guard)', async () => {
    useGuard();
    const failing = () => {
      throw new Error('search backend unavailable: connection refused');
    };
    const err = await h.guard.run('hidden-outputs-failing', () => generate(repeatedSearch(30), { recordOutputs: false }, failing)).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(LoopBreakError);
    expect(events.length).toBeGreaterThan(0);
    expect(h.toolSpans().length).toBeLessThan(30);
    await h.close();
  });
});
