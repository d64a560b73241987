import type { BaseMessage } from '@langchain/core/messages';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import type { LoopEvent } from '../../../instrumentation/index.js';
import { LangChainInstrumentation } from '../../../instrumentation/adapters/langchain/instrumentation.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { ScriptedWritingModel } from './support/langchain-model.js';
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

let instrumentation: LangChainInstrumentation;
let h: Harness;
let events: LoopEvent[];

beforeAll(async () => {
  instrumentation = new LangChainInstrumentation({ guard: createHarness().guard });
  await instrumentation.ready;
});
afterAll(() => instrumentation.disable());
afterEach(() => h.close());

function use() {
  ({ h, events } = modelHarness());
  instrumentation.setConfig({ guard: h.guard });
}

/** A LangGraph agent asked to continue after each answer, until the script ends or loopguard stops it. */
async function drive(scenario: Scenario): Promise<Driven> {
  const llm = new ScriptedWritingModel(scenario.turns);
  const agent = createReactAgent({ llm, tools: [] });
  const error = await h.guard
    .run(
      'writer',
      async () => {
        let messages: Array<BaseMessage | { role: string; content: string }> = [{ role: 'user', content: 'Write the report.' }];
        for (let i = 0; i < scenario.turns.length; i++) {
          const out = await agent.invoke({ messages });
          messages = [...out.messages, { role: 'user', content: 'continue' }];
        }
      },
      { maxOutputTokens: scenario.budget },
    )
    .then(() => undefined, (e: unknown) => e);
  return { error, prompts: llm.prompts };
}

describe('LangChain.js / LangGraph.js: model turns', () => {
  it('a model that keeps writing is told at 90 % in its next call and stopped at the budget', async () => {
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
