/**
 * Child process of ai-sdk-esm-hook.test.ts: an ESM app started with the
 * import-in-the-middle loader. ai@6 is imported after loopguard is set up,
 * as an app's own imports are; `generateText` must then be patched so a
 * loop break stops and rejects it. Prints one JSON line.
 */
import { AiSdkInstrumentation } from '../../../../instrumentation/adapters/ai-sdk/instrumentation.js';
import { LoopBreakError } from '../../../../src/breaker.js';
import { createHarness } from '../../../support/harness.js';
import { scriptedDoGenerate } from './ai-sdk-model.js';
import { repeatedSearch } from './trajectory.js';

const h = createHarness();
const instrumentation = new AiSdkInstrumentation({ guard: h.guard, aiModules: ['ai-v6'] });
const ai = await import('ai-v6');
const { MockLanguageModelV3 } = await import('ai-v6/test');
const { z } = await import('zod');
const search = ai.tool({ inputSchema: z.object({ query: z.string() }), execute: async () => 'Sunny, 21°C' });
const outcome = await h.guard
  .run('esm-ai6', () => ai.generateText({ model: new MockLanguageModelV3({ doGenerate: scriptedDoGenerate(repeatedSearch(30)) }), tools: { search }, stopWhen: ai.stepCountIs(30), prompt: 'p' }))
  .then((r) => ({ rejected: false, steps: r.steps.length }), (e: unknown) => ({ rejected: true, loopBreak: e instanceof LoopBreakError }));
instrumentation.disable();
await h.close();
console.log(JSON.stringify(outcome));
