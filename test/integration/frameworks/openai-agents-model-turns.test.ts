import { Agent, Runner, run, setTracingDisabled, type AgentInputItem } from '@openai/agents';
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import type { LoopEvent } from '../../../instrumentation/index.js';
import { OpenAIAgentsInstrumentation } from '../../../instrumentation/adapters/openai-agents/instrumentation.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { ScriptedWritingAgentsModel } from './support/agents-model.js';
import { expectKeepsWritingStoppedAtBudget, keepAsking, modelHarness, modelTurnAcceptance, SCENARIOS, type Driven, type Scenario } from './support/model-turns.js';

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

/** An agent run again after each answer, asked to continue; streamed or not. */
function driver(stream: boolean) {
  return async (scenario: Scenario): Promise<Driven> => {
    const model = new ScriptedWritingAgentsModel(scenario.turns);
    const agent = new Agent({ name: 'writer', instructions: 'write', model });
    const error = await keepAsking(h, scenario, async (input) => {
      if (!stream) return (await run(agent, input as AgentInputItem[])).history;
      const streamed = await run(agent, input as AgentInputItem[], { stream: true });
      await streamed.completed;
      if (streamed.error) throw streamed.error;
      return streamed.history;
    });
    return { error, prompts: model.prompts };
  };
}

describe('OpenAI Agents SDK: model turns', () => {
  modelTurnAcceptance(() => {
    use();
    return { h, events, drive: driver(false) };
  });

  it('guards the models a runner\'s model provider resolves names to', async () => {
    use();
    const model = new ScriptedWritingAgentsModel(SCENARIOS.keepsWriting.turns);
    const runner = new Runner({ modelProvider: { getModel: async () => model } });
    const agent = new Agent({ name: 'writer', instructions: 'write', model: 'any-model-name' });
    const error = await keepAsking(h, SCENARIOS.keepsWriting, async (input) => (await runner.run(agent, input as AgentInputItem[])).history);
    expectKeepsWritingStoppedAtBudget(h, { error, prompts: model.prompts });
  });

  describe('streamed runs', () => {
    modelTurnAcceptance(() => {
      use();
      return { h, events, drive: driver(true) };
    });
  });
});
