/**
 * Child process of ai-sdk-esm-hook.test.ts: an ESM app with ai@7, started
 * with or without the import-in-the-middle loader, whose calls hide their
 * inputs from telemetry. A response cut off asks for a recovery message in
 * the next model call; prints, for generateText and streamText, whether
 * that call's prompt carried it and whether it was left waiting instead.
 */
import { AiSdkInstrumentation } from '../../../../instrumentation/adapters/ai-sdk/instrumentation.js';
import { createHarness } from '../../../support/harness.js';
import { SCENARIOS } from './model-turns.js';
import { turnsDoGenerate, turnsDoStream } from './ai-sdk-model.js';

const h = createHarness();
const instrumentation = new AiSdkInstrumentation({ guard: h.guard });
await instrumentation.ready;
const ai = await import('ai');
const { MockLanguageModelV4 } = await import('ai/test');
const hidden = { telemetry: { recordInputs: false } };
const RECOVERY = 'Output limit hit';

async function twoCalls(call: (model: InstanceType<typeof MockLanguageModelV4>) => PromiseLike<unknown>, model: InstanceType<typeof MockLanguageModelV4>, prompts: () => unknown[]) {
  const waiting = await h.guard.run('writer', async () => {
    for (let i = 0; i < 2; i++) await call(model);
    return h.guard.takeModelMessage();
  });
  return { delivered: JSON.stringify(prompts()[1]).includes(RECOVERY), waiting: waiting?.includes(RECOVERY) ?? false };
}

const generating = new MockLanguageModelV4({ doGenerate: turnsDoGenerate(SCENARIOS.truncatedOnce.turns) as never });
const streaming = new MockLanguageModelV4({ doStream: turnsDoStream(SCENARIOS.truncatedOnce.turns) as never });
const outcome = {
  generateText: await twoCalls((model) => ai.generateText({ model, prompt: 'Write the table.', ...hidden }), generating, () => generating.doGenerateCalls.map((c) => c.prompt)),
  streamText: await twoCalls((model) => ai.streamText({ model, prompt: 'Write the table.', ...hidden }).consumeStream(), streaming, () => streaming.doStreamCalls.map((c) => c.prompt)),
};
instrumentation.disable();
await h.close();
console.log(JSON.stringify(outcome));
