import { ToolLoopAgent, type ModelMessage } from 'ai-v6';
import { MockLanguageModelV3 } from 'ai-v6/test';
import { afterAll, afterEach, beforeAll, describe } from 'vitest';
import type { LoopEvent } from '../../../instrumentation/index.js';
import { AiSdkInstrumentation } from '../../../instrumentation/adapters/ai-sdk/instrumentation.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { turnsDoGenerate } from './support/ai-sdk-model.js';
import { keepAsking, modelHarness, modelTurnAcceptance, type Driven, type Scenario } from './support/model-turns.js';

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

/** A ToolLoopAgent asked to continue after each answer. */
async function drive(scenario: Scenario): Promise<Driven> {
  const model = new MockLanguageModelV3({ doGenerate: turnsDoGenerate(scenario.turns) as never });
  const agent = new ToolLoopAgent({ model });
  const error = await keepAsking(h, scenario, async (messages) => [...messages, ...(await agent.generate({ messages: messages as ModelMessage[] })).response.messages]);
  return { error, prompts: model.doGenerateCalls.map((c) => JSON.stringify(c.prompt)) };
}

describe('AI SDK 6 (ToolLoopAgent, messages through prepareStep): model turns', () => {
  modelTurnAcceptance(() => {
    use();
    return { h, events, drive };
  });
});
