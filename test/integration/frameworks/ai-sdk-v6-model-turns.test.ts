import { ToolLoopAgent, type ModelMessage } from 'ai-v6';
import { MockLanguageModelV3 } from 'ai-v6/test';
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
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
  modelHarness,
  SCENARIOS,
  type Driven,
  type Scenario,
} from './support/model-turns.js';

let instrumentation: AiSdkInstrumentation;
let h: Harness;
let events: LoopEvent[];

beforeAll(async () => {
  // ai@6 is installed here under the alias `ai-v6`; its ToolLoopAgent is patched without module hooks.
  instrumentation = new AiSdkInstrumentation({ guard: createHarness().guard, aiModules: ['ai-v6'] });
  await instrumentation.ready;
});
afterAll(() => instrumentation.disable());
afterEach(() => h.close());

function use() {
  ({ h, events } = modelHarness());
  instrumentation.setConfig({ guard: h.guard, aiModules: ['ai-v6'] });
}

/** A ToolLoopAgent asked to continue after each answer, until the script ends or loopguard stops it. */
async function drive(scenario: Scenario): Promise<Driven> {
  const model = new MockLanguageModelV3({ doGenerate: turnsDoGenerate(scenario.turns) as never });
  const agent = new ToolLoopAgent({ model });
  const error = await h.guard
    .run(
      'writer',
      async () => {
        const messages: ModelMessage[] = [{ role: 'user', content: 'Write the report.' }];
        for (let i = 0; i < scenario.turns.length; i++) {
          const result = await agent.generate({ messages });
          messages.push(...result.response.messages, { role: 'user', content: 'continue' });
        }
      },
      { maxOutputTokens: scenario.budget },
    )
    .then(() => undefined, (e: unknown) => e);
  return { error, prompts: model.doGenerateCalls.map((c) => JSON.stringify(c.prompt)) };
}

describe('AI SDK 6 (ToolLoopAgent): model turns', () => {
  it('a model that keeps writing is told at 90 % through prepareStep and stopped at the budget', async () => {
    use();
    expectKeepsWritingStoppedAtBudget(h, await drive(SCENARIOS.keepsWriting));
  });

  it('diminishing returns stop the run', async () => {
    use();
    expectDiminishingStopped(h, await drive(SCENARIOS.diminishing));
  });

  it('three truncations in a row stop the run', async () => {
    use();
    expectTruncationStopped(h, await drive(SCENARIOS.truncated));
  });

  it('a single truncation recovered does not stop the run', async () => {
    use();
    expectTruncationRecovered(h, await drive(SCENARIOS.truncatedOnce));
  });

  it('a model repeating its answer is nudged', async () => {
    use();
    expectRepeatingNudged(h, events, await drive(SCENARIOS.repeating));
  });
});
