import { Agent, run, setTracingDisabled, type AgentInputItem } from '@openai/agents';
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import type { LoopEvent } from '../../../instrumentation/index.js';
import { OpenAIAgentsInstrumentation } from '../../../instrumentation/adapters/openai-agents/instrumentation.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { ScriptedWritingAgentsModel } from './support/agents-model.js';
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

let instrumentation: OpenAIAgentsInstrumentation;
let h: Harness;
let events: LoopEvent[];

beforeAll(async () => {
  // The SDK's own tracing exports to OpenAI's servers: never from tests.
  setTracingDisabled(true);
  instrumentation = new OpenAIAgentsInstrumentation({ guard: createHarness().guard });
  await instrumentation.ready;
});
afterAll(() => instrumentation.disable());
afterEach(() => h.close());

function use() {
  ({ h, events } = modelHarness());
  instrumentation.setConfig({ guard: h.guard });
}

/** An agent run again with "continue" after each answer, until the script ends or loopguard stops it. */
async function drive(scenario: Scenario): Promise<Driven> {
  const model = new ScriptedWritingAgentsModel(scenario.turns);
  const agent = new Agent({ name: 'writer', instructions: 'write', model });
  const error = await h.guard
    .run(
      'writer',
      async () => {
        let input: AgentInputItem[] = [{ role: 'user', content: 'Write the report.' }];
        for (let i = 0; i < scenario.turns.length; i++) {
          const result = await run(agent, input);
          input = [...result.history, { role: 'user', content: 'continue' }];
        }
      },
      { maxOutputTokens: scenario.budget },
    )
    .then(() => undefined, (e: unknown) => e);
  return { error, prompts: model.prompts };
}

describe('OpenAI Agents SDK: model turns', () => {
  it('a model that keeps writing is told at 90 % in its next request and stopped at the budget', async () => {
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
