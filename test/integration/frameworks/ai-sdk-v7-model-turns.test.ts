import { OpenTelemetry } from '@ai-sdk/otel';
import { generateText, type ModelMessage } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../../instrumentation/index.js';
import { AiSdkInstrumentation } from '../../../instrumentation/adapters/ai-sdk/instrumentation.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { turnsDoGenerate } from './support/ai-sdk-model.js';
import {
  expectDiminishingStopped,
  expectKeepsWritingStoppedAtBudget,
  expectRepeatingNudged,
  expectTruncationRecovered,
  expectTruncationStopped,
  llmSpans,
  modelHarness,
  SCENARIOS,
  type Driven,
  type Scenario,
} from './support/model-turns.js';

let instrumentation: AiSdkInstrumentation;
let h: Harness;
let events: LoopEvent[];

beforeAll(async () => {
  instrumentation = new AiSdkInstrumentation({ guard: createHarness().guard, aiModules: [] });
  await instrumentation.ready;
});
afterAll(() => instrumentation.disable());
afterEach(() => h.close());

function use() {
  ({ h, events } = modelHarness());
  instrumentation.setConfig({ guard: h.guard, aiModules: [] });
}

/** An agent that keeps asking the model to continue, one generateText per answer, until the script ends or loopguard stops it. */
async function drive(scenario: Scenario, extra: Record<string, unknown> = {}): Promise<Driven> {
  const model = new MockLanguageModelV4({ doGenerate: turnsDoGenerate(scenario.turns) as never });
  const error = await h.guard
    .run(
      'writer',
      async () => {
        const messages: ModelMessage[] = [{ role: 'user', content: 'Write the report.' }];
        for (let i = 0; i < scenario.turns.length; i++) {
          const result = await generateText({ model, messages, ...extra } as never) as { response: { messages: ModelMessage[] } };
          messages.push(...result.response.messages, { role: 'user', content: 'continue' });
        }
      },
      { maxOutputTokens: scenario.budget },
    )
    .then(() => undefined, (e: unknown) => e);
  return { error, prompts: model.doGenerateCalls.map((c) => JSON.stringify(c.prompt)) };
}

describe('AI SDK 7: model turns', () => {
  it('a model that keeps writing is told at 90 % in its next prompt and stopped at the budget', async () => {
    use();
    expectKeepsWritingStoppedAtBudget(h, await drive(SCENARIOS.keepsWriting));
  });

  it('diminishing returns stop the run', async () => {
    use();
    expectDiminishingStopped(h, await drive(SCENARIOS.diminishing));
  });

  it('three truncations in a row stop the run; the recovery message reaches the next prompt', async () => {
    use();
    expectTruncationStopped(h, await drive(SCENARIOS.truncated));
  });

  it('a single truncation recovered does not stop the run', async () => {
    use();
    expectTruncationRecovered(h, await drive(SCENARIOS.truncatedOnce));
  });

  it('a model repeating its answer is nudged in its next prompt; onLoop is told', async () => {
    use();
    expectRepeatingNudged(h, events, await drive(SCENARIOS.repeating));
  });

  it('with @ai-sdk/otel registered, its chat span carries the response once (no second span)', async () => {
    use();
    const otel = new OpenTelemetry({ tracer: h.provider.getTracer('ai') });
    const driven = await drive(SCENARIOS.keepsWriting, { telemetry: { integrations: [instrumentation.integration(), otel] } });
    expectKeepsWritingStoppedAtBudget(h, driven);
    expect(llmSpans(h).every((s) => s.instrumentationScope.name === 'ai')).toBe(true);
  });
});
