import type { AIMessage, BaseMessage } from '@langchain/core/messages';
import type { LoopBreakError } from '../../../src/breaker.js';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../../instrumentation/index.js';
import { LangChainInstrumentation } from '../../../instrumentation/adapters/langchain/instrumentation.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { ScriptedWritingModel } from './support/langchain-model.js';
import { keepAsking, modelHarness, modelTurnAcceptance, SCENARIOS, type Driven, type Scenario } from './support/model-turns.js';

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

  it('an LLM client instrumentation\'s chat span inside the model call is not counted a second time', async () => {
    use();
    const client = h.provider.getTracer('llm-client');
    /** The chat span an instrumented provider SDK (the OpenAI client under ChatOpenAI) makes inside each call. */
    class InstrumentedClientModel extends ScriptedWritingModel {
      override async _generate(...args: Parameters<ScriptedWritingModel['_generate']>) {
        const result = await super._generate(...args);
        const tokens = (result.generations[0]!.message as AIMessage).usage_metadata!.output_tokens;
        client.startSpan('chat provider-model', { attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.output_tokens': tokens, 'gen_ai.response.finish_reasons': ['stop'] } }).end();
        return result;
      }
    }
    const llm = new InstrumentedClientModel(SCENARIOS.keepsWriting.turns);
    const agent = createReactAgent({ llm, tools: [] });
    const error = await keepAsking(h, SCENARIOS.keepsWriting, async (messages) => (await agent.invoke({ messages: messages as BaseMessage[] })).messages);
    // Counted twice, 1200 tokens a turn would have stopped the run at the second answer.
    expect(llm.prompts).toHaveLength(4);
    expect((error as LoopBreakError).reason).toBe('budget');
    const clientSpans = h.spans().filter((s) => s.instrumentationScope.name === 'llm-client');
    expect(clientSpans).toHaveLength(4);
    expect(clientSpans.every((s) => s.events.length === 0 && s.attributes['loopguard.level'] === undefined)).toBe(true);
  });
});
