/**
 * ai@6's `generateText` has no telemetry hook that can add to a model call:
 * where it is patched (the require hook under CommonJS, as here, or the
 * ESM loader) loopguard reaches the loop's `prepareStep`.
 */
import { createRequire } from 'node:module';
import type { ModelMessage } from 'ai-v6';
import { afterAll, afterEach, beforeAll, describe } from 'vitest';
import type { LoopEvent } from '../../../instrumentation/index.js';
import { AiSdkInstrumentation } from '../../../instrumentation/adapters/ai-sdk/instrumentation.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { turnsDoGenerate } from './support/ai-sdk-model.js';
import { keepAsking, modelHarness, modelTurnAcceptance, type Driven, type Scenario } from './support/model-turns.js';

const require = createRequire(import.meta.url);
let instrumentation: AiSdkInstrumentation;
let ai: typeof import('ai-v6');
let MockLanguageModelV3: typeof import('ai-v6/test').MockLanguageModelV3;
let h: Harness;
let events: LoopEvent[];

beforeAll(() => {
  // The alias this repository installs ai@6 under; an app would use the default, 'ai'.
  instrumentation = new AiSdkInstrumentation({ guard: createHarness().guard, aiModules: ['ai-v6'] });
  ai = require('ai-v6') as typeof import('ai-v6');
  ({ MockLanguageModelV3 } = require('ai-v6/test') as typeof import('ai-v6/test'));
});
afterAll(() => instrumentation.disable());
afterEach(() => h.close());

function use() {
  ({ h, events } = modelHarness());
  instrumentation.setConfig({ guard: h.guard, aiModules: ['ai-v6'] });
}

/** generateText (the CommonJS copy, patched) called again after each answer, asking to continue. */
async function drive(scenario: Scenario): Promise<Driven> {
  const model = new MockLanguageModelV3({ doGenerate: turnsDoGenerate(scenario.turns) as never });
  const error = await keepAsking(h, scenario, async (messages) => [
    ...messages,
    ...(await ai.generateText({ model, messages: messages as ModelMessage[] })).response.messages,
  ]);
  return { error, prompts: model.doGenerateCalls.map((c) => JSON.stringify(c.prompt)) };
}

describe('AI SDK 6 generateText, CommonJS (messages through prepareStep): model turns', () => {
  modelTurnAcceptance(() => {
    use();
    return { h, events, drive };
  });
});
