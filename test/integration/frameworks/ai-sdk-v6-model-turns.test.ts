import { createRequire } from 'node:module';
import { ToolLoopAgent, type ModelMessage } from 'ai-v6';
import { MockLanguageModelV3 } from 'ai-v6/test';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../../instrumentation/index.js';
import { AiSdkInstrumentation } from '../../../instrumentation/adapters/ai-sdk/instrumentation.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { turnsDoGenerate, turnsDoStream } from './support/ai-sdk-model.js';
import { keepAsking, modelHarness, modelTurnAcceptance, SCENARIOS, type Driven, type Scenario } from './support/model-turns.js';

const require = createRequire(import.meta.url);
let instrumentation: AiSdkInstrumentation;
let h: Harness;
let events: LoopEvent[];

beforeAll(async () => {
  // ai@6 is installed here under the alias `ai-v6` (an app would use the default, 'ai'); its ESM
  // ToolLoopAgent is patched without module hooks, its CommonJS copy by the require hook.
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
async function driveAgent(scenario: Scenario, extra: Record<string, unknown> = {}): Promise<Driven> {
  const model = new MockLanguageModelV3({ doGenerate: turnsDoGenerate(scenario.turns) as never });
  const agent = new ToolLoopAgent({ model, ...extra });
  const error = await keepAsking(h, scenario, async (messages) => [...messages, ...(await agent.generate({ messages: messages as ModelMessage[] })).response.messages]);
  return { error, prompts: model.doGenerateCalls.map((c) => JSON.stringify(c.prompt)) };
}

/**
 * generateText called again after each answer: ai@6 has no telemetry hook
 * that can add to a model call, so this needs its patched copy (the require
 * hook under CommonJS, as here, or the ESM loader), whose loop's
 * `prepareStep` loopguard reaches.
 */
async function driveGenerateText(scenario: Scenario, extra: Record<string, unknown> = {}): Promise<Driven> {
  const ai = require('ai-v6') as typeof import('ai-v6');
  const { MockLanguageModelV3: CjsMockModel } = require('ai-v6/test') as typeof import('ai-v6/test');
  const model = new CjsMockModel({ doGenerate: turnsDoGenerate(scenario.turns) as never });
  const error = await keepAsking(h, scenario, async (messages) => [...messages, ...(await ai.generateText({ model, messages: messages as ModelMessage[], ...extra })).response.messages]);
  return { error, prompts: model.doGenerateCalls.map((c) => JSON.stringify(c.prompt)) };
}

/** streamText (patched copy) called again after each answer, its stream read to the end. */
async function driveStreamText(scenario: Scenario, extra: Record<string, unknown> = {}): Promise<Driven> {
  const ai = require('ai-v6') as typeof import('ai-v6');
  const { MockLanguageModelV3: CjsMockModel } = require('ai-v6/test') as typeof import('ai-v6/test');
  const model = new CjsMockModel({ doStream: turnsDoStream(scenario.turns) as never });
  const error = await keepAsking(h, scenario, async (messages) => {
    let failed: unknown;
    const result = ai.streamText({ model, messages: messages as ModelMessage[], onError: ({ error }) => void (failed = error), ...extra });
    await result.consumeStream();
    if (failed !== undefined) throw failed;
    return [...messages, ...(await result.response).messages];
  });
  return { error, prompts: model.doStreamCalls.map((c) => JSON.stringify(c.prompt)) };
}

/** The AI SDK's own spans on: each model call also makes an `ai.generateText.doGenerate` / `ai.streamText.doStream` span, which loopguard reads as an LLM span. */
const telemetryOn = () => ({ experimental_telemetry: { isEnabled: true, recordInputs: false, recordOutputs: false, tracer: h.provider.getTracer('ai') } });

describe('AI SDK 6 (messages and the refusal through prepareStep): model turns', () => {
  describe('ToolLoopAgent', () => {
    modelTurnAcceptance(() => {
      use();
      return { h, events, drive: driveAgent };
    });
  });

  describe('generateText, CommonJS', () => {
    modelTurnAcceptance(() => {
      use();
      return { h, events, drive: driveGenerateText };
    });
  });

  describe('streamText, CommonJS', () => {
    modelTurnAcceptance(() => {
      use();
      return { h, events, drive: driveStreamText };
    });
  });

  // One response, two LLM spans (the SDK's model-call span, the adapter's from onStepFinish): counted once.
  describe.each([
    ['ToolLoopAgent', driveAgent],
    ['generateText, CommonJS', driveGenerateText],
    ['streamText, CommonJS', driveStreamText],
  ] as const)('%s with experimental_telemetry on', (_name, driveWith) => {
    modelTurnAcceptance(() => {
      use();
      return { h, events, drive: (scenario) => driveWith(scenario, telemetryOn()) };
    });

    it("the SDK's model-call spans are there and carry no verdict of their own", async () => {
      use();
      await driveWith(SCENARIOS.keepsWriting, telemetryOn());
      const sdkSpans = h.spans().filter((s) => /^ai\.(generateText\.doGenerate|streamText\.doStream)$/.test(String(s.attributes['ai.operationId'])));
      expect(sdkSpans).toHaveLength(4);
      expect(sdkSpans.some((s) => s.attributes['loopguard.level'] !== undefined)).toBe(false);
    });
  });
});
