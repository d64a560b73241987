import type { BaseMessage } from '@langchain/core/messages';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { afterAll, afterEach, beforeAll, describe } from 'vitest';
import type { LoopEvent } from '../../../instrumentation/index.js';
import { LangChainInstrumentation } from '../../../instrumentation/adapters/langchain/instrumentation.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { ScriptedWritingModel } from './support/langchain-model.js';
import { keepAsking, modelHarness, modelTurnAcceptance, type Driven, type Scenario } from './support/model-turns.js';

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

/** A LangGraph agent invoked again after each answer, asked to continue. */
async function drive(scenario: Scenario): Promise<Driven> {
  const llm = new ScriptedWritingModel(scenario.turns);
  const agent = createReactAgent({ llm, tools: [] });
  const error = await keepAsking(h, scenario, async (messages) => (await agent.invoke({ messages: messages as BaseMessage[] })).messages);
  return { error, prompts: llm.prompts };
}

describe('LangChain.js / LangGraph.js: model turns', () => {
  modelTurnAcceptance(() => {
    use();
    return { h, events, drive };
  });
});
