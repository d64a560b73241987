import { Agent, run, setTracingDisabled, type AgentInputItem } from '@openai/agents';
import { afterAll, afterEach, beforeAll, describe } from 'vitest';
import type { LoopEvent } from '../../../instrumentation/index.js';
import { OpenAIAgentsInstrumentation } from '../../../instrumentation/adapters/openai-agents/instrumentation.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { ScriptedWritingAgentsModel } from './support/agents-model.js';
import { keepAsking, modelHarness, modelTurnAcceptance, type Driven, type Scenario } from './support/model-turns.js';

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

  describe('streamed runs', () => {
    modelTurnAcceptance(() => {
      use();
      return { h, events, drive: driver(true) };
    });
  });
});
