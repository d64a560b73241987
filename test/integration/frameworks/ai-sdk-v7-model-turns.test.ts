import { LegacyOpenTelemetry, OpenTelemetry } from '@ai-sdk/otel';
import { generateText, streamText, ToolLoopAgent, type ModelMessage } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { APICallError } from '@ai-sdk/provider';
import { LoopBreakError } from '../../../src/breaker.js';
import { SpanStatusCode } from '@opentelemetry/api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../../instrumentation/index.js';
import { AiSdkInstrumentation } from '../../../instrumentation/adapters/ai-sdk/instrumentation.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { turnsDoGenerate, turnsDoStream } from './support/ai-sdk-model.js';
import { expectKeepsWritingStoppedAtBudget, llmSpans, keepAsking, rootSpan, modelHarness, modelTurnAcceptance, SCENARIOS, type Driven, type Scenario } from './support/model-turns.js';

let instrumentation: AiSdkInstrumentation;
let h: Harness;
let events: LoopEvent[];

beforeAll(async () => {
  // ai@7's ToolLoopAgent is patched on its prototype (generateText only through the module hooks, not loaded here).
  instrumentation = new AiSdkInstrumentation({ guard: createHarness().guard });
  await instrumentation.ready;
});
afterAll(() => instrumentation.disable());
afterEach(() => h.close());

function use() {
  ({ h, events } = modelHarness());
  instrumentation.setConfig({ guard: h.guard });
}

/** generateText called again after each answer, asking to continue. */
async function drive(scenario: Scenario, extra: Record<string, unknown> = {}): Promise<Driven> {
  const model = new MockLanguageModelV4({ doGenerate: turnsDoGenerate(scenario.turns) as never });
  const error = await keepAsking(h, scenario, async (messages) => {
    const result = (await generateText({ model, messages: messages as ModelMessage[], ...extra } as never)) as { response: { messages: ModelMessage[] } };
    return [...messages, ...result.response.messages];
  });
  return { error, prompts: model.doGenerateCalls.map((c) => JSON.stringify(c.prompt)) };
}

/** A ToolLoopAgent asked to continue after each answer. */
async function driveAgent(scenario: Scenario, settings: Record<string, unknown>): Promise<Driven> {
  const model = new MockLanguageModelV4({ doGenerate: turnsDoGenerate(scenario.turns) as never });
  const agent = new ToolLoopAgent({ model, ...settings });
  const error = await keepAsking(h, scenario, async (messages) => [...messages, ...(await agent.generate({ messages: messages as ModelMessage[] })).response.messages]);
  return { error, prompts: model.doGenerateCalls.map((c) => JSON.stringify(c.prompt)) };
}

/** streamText called again after each answer, its stream read to the end. */
async function driveStream(scenario: Scenario, extra: Record<string, unknown> = {}): Promise<Driven> {
  const model = new MockLanguageModelV4({ doStream: turnsDoStream(scenario.turns) as never });
  const error = await keepAsking(h, scenario, async (messages) => {
    let failed: unknown;
    const result = streamText({ model, messages: messages as ModelMessage[], onError: ({ error }: { error: unknown }) => void (failed = error), ...extra } as never) as unknown as {
      consumeStream(): Promise<void>;
      response: Promise<{ messages: ModelMessage[] }>;
    };
    await result.consumeStream();
    if (failed !== undefined) throw failed;
    return [...messages, ...(await result.response).messages];
  });
  return { error, prompts: model.doStreamCalls.map((c) => JSON.stringify(c.prompt)) };
}

describe('AI SDK 7 (messages through the step prompt): model turns', () => {
  modelTurnAcceptance(() => {
    use();
    return { h, events, drive };
  });

  describe('streamText', () => {
    modelTurnAcceptance(() => {
      use();
      return { h, events, drive: driveStream };
    });
  });

  it('with @ai-sdk/otel registered, its chat span carries the response once (no second span)', async () => {
    use();
    const otel = new OpenTelemetry({ tracer: h.provider.getTracer('ai') });
    const driven = await drive(SCENARIOS.keepsWriting, { telemetry: { integrations: [instrumentation.integration(), otel] } });
    expectKeepsWritingStoppedAtBudget(h, driven);
    expect(llmSpans(h).every((s) => s.instrumentationScope.name === 'ai')).toBe(true);
  });

  it("reads @ai-sdk/otel's spans where loopguard's integration is left out, and a failed model call is no response", async () => {
    use();
    const cutOff = { content: [{ type: 'text', text: 'The table begins' }], finishReason: { unified: 'length', raw: 'length' }, usage: { inputTokens: { total: 10 }, outputTokens: { total: 400 } }, warnings: [] };
    let calls = 0;
    const model = new MockLanguageModelV4({
      doGenerate: (async () => {
        calls += 1;
        // The second call is refused (rate limited; no retries): the agent catches the error and asks again.
        if (calls === 2) throw new APICallError({ message: 'Rate limit reached', url: 'https://api.example.test', requestBodyValues: {}, statusCode: 429, isRetryable: true });
        return cutOff;
      }) as never,
    });
    const otel = new OpenTelemetry({ tracer: h.provider.getTracer('ai') });
    await h.guard.run('writer', async () => {
      for (let i = 0; i < 4; i++) await generateText({ model, prompt: 'Write the table.', maxRetries: 0, telemetry: { integrations: [otel] } } as never).catch(() => undefined);
    });
    const chats = h.spans().filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
    expect(chats.map((s) => s.status.code)).toEqual([SpanStatusCode.UNSET, SpanStatusCode.ERROR, SpanStatusCode.UNSET, SpanStatusCode.UNSET]);
    // Three responses in a row cut off (the refused call between them is none): warned at the second, stopped at the third.
    expect(chats.map((s) => s.attributes['loopguard.level'])).toEqual([undefined, undefined, 'warning', 'break']);
    expect(rootSpan(h).attributes['loopguard.run.exit_reason']).toBe('truncation');
  });

  describe("with the call's telemetry recordInputs: false (integrations get a filtered copy of the prompt)", () => {
    const hidden = { telemetry: { recordInputs: false } };

    it('generateText without the module hook: the waiting message is not lost in the copy, it stays waiting', async () => {
      use();
      const model = new MockLanguageModelV4({ doGenerate: turnsDoGenerate(SCENARIOS.truncatedOnce.turns) as never });
      const waiting = await h.guard.run('writer', async () => {
        // Cut off, then asked again (and finished): the second call's prompt is hidden from loopguard.
        for (let i = 0; i < 2; i++) await generateText({ model, prompt: 'Write the table.', ...hidden } as never);
        return h.guard.takeModelMessage();
      });
      expect(waiting).toContain('Output limit hit: continue from where you stopped');
    });

    describe('ToolLoopAgent (patched on its prototype): the message goes through prepareStep', () => {
      modelTurnAcceptance(() => {
        use();
        return { h, events, drive: (scenario) => driveAgent(scenario, hidden) };
      });
    });
  });

  describe("with the call's telemetry recordOutputs: false (integrations get no response content)", () => {
    it('repeated answers are not judged (no text to compare); budgets and truncation still are', async () => {
      use();
      const repeating = await drive(SCENARIOS.repeating, { telemetry: { recordOutputs: false } });
      expect(repeating.error).toBeUndefined();
      expect(events).toEqual([]);
      expect(llmSpans(h).every((s) => s.attributes['loopguard.output.sketch'] === undefined)).toBe(true);
      h.close();
      use();
      expectKeepsWritingStoppedAtBudget(h, await drive(SCENARIOS.keepsWriting, { telemetry: { recordOutputs: false } }));
      h.close();
      use();
      const truncated = await drive(SCENARIOS.truncated, { telemetry: { recordOutputs: false } });
      expect((truncated.error as LoopBreakError).reason).toBe('truncation');
      expect(truncated.prompts[1]).toContain('Output limit hit');
    });
  });


  // A tracing integration's span of each model call besides loopguard's record of the response: counted once, in either order.
  const tracings = {
    '@ai-sdk/otel': () => new OpenTelemetry({ tracer: h.provider.getTracer('ai') }),
    'LegacyOpenTelemetry (the ai.* spans)': () => new LegacyOpenTelemetry({ tracer: h.provider.getTracer('ai') }),
  };
  const drivers = { generateText: drive, streamText: driveStream };
  describe.each(Object.keys(tracings) as (keyof typeof tracings)[])('with %s', (tracing) => {
    describe.each(Object.keys(drivers) as (keyof typeof drivers)[])('%s', (entry) => {
      describe.each(['after', 'before'] as const)("listed %s loopguard's integration", (order) => {
        const integrations = () => (order === 'after' ? [instrumentation.integration(), tracings[tracing]()] : [tracings[tracing](), instrumentation.integration()]);
        modelTurnAcceptance(() => {
          use();
          return { h, events, drive: (scenario) => drivers[entry](scenario, { telemetry: { integrations: integrations() } }), tracingScope: 'ai' };
        });
      });
    });
  });
});
