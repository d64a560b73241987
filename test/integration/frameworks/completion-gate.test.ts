import { tool as lcTool } from '@langchain/core/tools';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { Agent, run as agentsRun, setTracingDisabled, tool as agentsTool } from '@openai/agents';
import { stepCountIs, tool as aiTool, ToolLoopAgent } from 'ai-v6';
import { MockLanguageModelV3 } from 'ai-v6/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { CompleteEvent, LoopEvent } from '../../../instrumentation/index.js';
import { rememberingStepCountIs } from '../../../instrumentation/adapters/ai-sdk/completion-gate.js';
import { AiSdkInstrumentation } from '../../../instrumentation/adapters/ai-sdk/instrumentation.js';
import { LangChainInstrumentation } from '../../../instrumentation/adapters/langchain/instrumentation.js';
import { OpenAIAgentsInstrumentation } from '../../../instrumentation/adapters/openai-agents/instrumentation.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { scriptedDoGenerate } from './support/ai-sdk-model.js';
import { ScriptedAgentsModel } from './support/agents-model.js';
import { ScriptedToolCallingModel } from './support/langchain-model.js';
import type { ScriptedCall } from './support/trajectory.js';

/**
 * Acceptance for the completion gate (issue 11, item 4) through each
 * framework with its own mock model: a run that finishes after a failed
 * health check with no passing re-check is asked once to verify, then ends
 * `completed_unverified`; one whose failure was re-checked green ends
 * `completed`. The framework's own turn limit ends a run as `max_turns`.
 */

const HEALTH = { url: 'http://localhost:8080/health' };
const SUBJECT = 'service://localhost:8080';
const ASKED = '[loopguard] Before you finish';

/** A health check answering refused `failures` times, then ok. */
function healthCheck(failures: number) {
  let calls = 0;
  return async (): Promise<unknown> => (++calls <= failures ? { error: 'connect ECONNREFUSED 127.0.0.1:8080' } : { status: 'healthy' });
}

const checkOnce: ScriptedCall[] = [{ tool: 'http_get', args: HEALTH, result: '' }];
const checkFixCheck: ScriptedCall[] = [
  { tool: 'http_get', args: HEALTH, result: '' },
  { tool: 'restart', args: { service: 'web' }, result: '' },
  { tool: 'http_get', args: HEALTH, result: '' },
];

let h: Harness;
let loops: LoopEvent[];
let completions: CompleteEvent[];

function useGuard(): Harness {
  loops = [];
  completions = [];
  h = createHarness({ onLoop: (e) => void loops.push(e), onComplete: (e) => void completions.push(e) });
  return h;
}

function root() {
  const spans = h.spans().filter((s) => s.parentSpanContext === undefined && s.attributes['gen_ai.operation.name'] === 'invoke_agent');
  expect(spans).toHaveLength(1);
  return spans[0]!;
}

async function expectUnverified(prompts: string[]): Promise<void> {
  expect(loops.filter((e) => e.detector === 'completion-gate')).toHaveLength(1);
  expect(prompts.filter((p) => p.includes(ASKED))).not.toHaveLength(0);
  expect(prompts.find((p) => p.includes(ASKED))).toContain(SUBJECT);
  const r = root();
  expect(r.attributes['loopguard.run.exit_reason']).toBe('completed_unverified');
  expect(r.attributes['loopguard.run.unresolved_failures']).toBe(1);
  const event = r.events.find((e) => e.name === 'loopguard.unresolved_failures');
  // Content capture is off: the span names the subject's kind and a hash, the model and onComplete the subject.
  expect(event?.attributes?.['loopguard.subjects']).toEqual([expect.stringMatching(/^service:\/\/#[0-9a-f]{16}$/)]);
  expect(JSON.stringify(h.spans().map((s) => [s.attributes, s.events]))).not.toContain('localhost:8080');
  expect(completions).toHaveLength(1);
  expect(completions[0]).toMatchObject({ exitReason: 'completed_unverified', unresolved: [SUBJECT] });
  const ended = (await h.metrics()).get('loopguard.runs.ended') ?? [];
  expect(ended).toEqual([{ attributes: { reason: 'completed_unverified' }, value: 1 }]);
}

function expectCompleted(prompts: string[]): void {
  expect(loops.filter((e) => e.detector === 'completion-gate')).toEqual([]);
  expect(prompts.some((p) => p.includes(ASKED))).toBe(false);
  const r = root();
  expect(r.attributes['loopguard.run.exit_reason']).toBe('completed');
  expect(r.attributes['loopguard.run.unresolved_failures']).toBeUndefined();
  expect(completions).toMatchObject([{ exitReason: 'completed', unresolved: [] }]);
}

describe('completion gate: AI SDK 6 ToolLoopAgent with MockLanguageModelV3', () => {
  let instrumentation: AiSdkInstrumentation;
  beforeAll(async () => {
    instrumentation = new AiSdkInstrumentation({ guard: createHarness().guard, aiModules: ['ai-v6'] });
    await instrumentation.ready;
  });
  afterAll(() => instrumentation.disable());

  function agentFor(calls: ScriptedCall[], failures: number, stopWhen?: unknown) {
    const model = new MockLanguageModelV3({ doGenerate: scriptedDoGenerate(calls, 'The service is deployed.') });
    const tools = {
      http_get: aiTool({ description: 'GET a URL', inputSchema: z.object({ url: z.string() }), execute: healthCheck(failures) }),
      restart: aiTool({ description: 'restart a service', inputSchema: z.object({ service: z.string() }), execute: async () => 'restarted' }),
    };
    return { model, agent: new ToolLoopAgent({ model, tools, ...(stopWhen ? { stopWhen: stopWhen as never } : {}) }) };
  }
  const promptsOf = (model: MockLanguageModelV3) => model.doGenerateCalls.map((c) => JSON.stringify(c.prompt));

  it('a finish after a refused health check is asked once to verify, then recorded as completed_unverified', async () => {
    instrumentation.setConfig({ guard: useGuard().guard, aiModules: ['ai-v6'] });
    const { model, agent } = agentFor(checkOnce, 99);
    const result = await agent.generate({ prompt: 'deploy web' });
    expect(result.text).toBe('The service is deployed.');
    await expectUnverified(promptsOf(model));
    await h.close();
  });

  it('a failure re-checked green finishes as completed, unasked', async () => {
    instrumentation.setConfig({ guard: useGuard().guard, aiModules: ['ai-v6'] });
    const { model, agent } = agentFor(checkFixCheck, 1);
    await agent.generate({ prompt: 'deploy web' });
    expectCompleted(promptsOf(model));
    await h.close();
  });

  it('a step limit that ends the run with tool calls pending is max_turns', async () => {
    instrumentation.setConfig({ guard: useGuard().guard, aiModules: ['ai-v6'] });
    // Under the module hooks, the stepCountIs an app imports is this one.
    const { agent } = agentFor(checkFixCheck, 0, rememberingStepCountIs(stepCountIs)(2));
    const result = await agent.generate({ prompt: 'deploy web' });
    expect(result.finishReason).toBe('tool-calls');
    expect(root().attributes['loopguard.run.exit_reason']).toBe('max_turns');
    expect(completions).toMatchObject([{ exitReason: 'max_turns' }]);
    await h.close();
  });
});

describe('completion gate: LangGraph createReactAgent with a LangChain fake chat model', () => {
  let instrumentation: LangChainInstrumentation;
  beforeAll(async () => {
    instrumentation = new LangChainInstrumentation({ guard: createHarness().guard });
    await instrumentation.ready;
  });
  afterAll(() => instrumentation.disable());

  function agentFor(calls: ScriptedCall[], failures: number) {
    const llm = new ScriptedToolCallingModel(calls, 'The service is deployed.');
    const check = healthCheck(failures);
    const httpGet = lcTool(async () => JSON.stringify(await check()), { name: 'http_get', description: 'GET a URL', schema: z.object({ url: z.string() }) });
    const restart = lcTool(async () => 'restarted', { name: 'restart', description: 'restart a service', schema: z.object({ service: z.string() }) });
    return { llm, agent: createReactAgent({ llm, tools: [httpGet, restart] }) };
  }

  it('a finish after a refused health check is asked once to verify, then recorded as completed_unverified', async () => {
    instrumentation.setConfig({ guard: useGuard().guard });
    const { llm, agent } = agentFor(checkOnce, 99);
    const state = await agent.invoke({ messages: [{ role: 'user', content: 'deploy web' }] });
    expect(String(state.messages.at(-1)!.content)).toBe('The service is deployed.');
    await expectUnverified(llm.prompts);
    await h.close();
  });

  it('a failure re-checked green finishes as completed, unasked', async () => {
    instrumentation.setConfig({ guard: useGuard().guard });
    const { llm, agent } = agentFor(checkFixCheck, 1);
    await agent.invoke({ messages: [{ role: 'user', content: 'deploy web' }] });
    expectCompleted(llm.prompts);
    await h.close();
  });

  it('GraphRecursionError (the recursion limit) is max_turns', async () => {
    instrumentation.setConfig({ guard: useGuard().guard });
    const { agent } = agentFor(checkFixCheck, 0);
    const err = await agent.invoke({ messages: [{ role: 'user', content: 'deploy web' }] }, { recursionLimit: 3 }).then(() => undefined, (e: unknown) => e);
    expect((err as Error).name).toBe('GraphRecursionError');
    expect(root().attributes['loopguard.run.exit_reason']).toBe('max_turns');
    expect(completions).toMatchObject([{ exitReason: 'max_turns' }]);
    await h.close();
  });
});

describe('completion gate: OpenAI Agents with a scripted Model', () => {
  let instrumentation: OpenAIAgentsInstrumentation;
  beforeAll(async () => {
    setTracingDisabled(true);
    instrumentation = new OpenAIAgentsInstrumentation({ guard: createHarness().guard });
    await instrumentation.ready;
  });
  afterAll(() => instrumentation.disable());

  function agentFor(calls: ScriptedCall[], failures: number) {
    const model = new ScriptedAgentsModel(calls, 'The service is deployed.');
    const check = healthCheck(failures);
    const httpGet = agentsTool({ name: 'http_get', description: 'GET a URL', parameters: z.object({ url: z.string() }), execute: async () => JSON.stringify(await check()) });
    const restart = agentsTool({ name: 'restart', description: 'restart a service', parameters: z.object({ service: z.string() }), execute: async () => 'restarted' });
    return { model, agent: new Agent({ name: 'deployer', instructions: 'deploy', model, tools: [httpGet, restart] }) };
  }

  it('a finish after a refused health check is asked once to verify, then recorded as completed_unverified', async () => {
    instrumentation.setConfig({ guard: useGuard().guard });
    const { model, agent } = agentFor(checkOnce, 99);
    const result = await agentsRun(agent, 'deploy web');
    expect(result.finalOutput).toBe('The service is deployed.');
    await expectUnverified(model.prompts);
    await h.close();
  });

  it('a failure re-checked green finishes as completed, unasked', async () => {
    instrumentation.setConfig({ guard: useGuard().guard });
    const { model, agent } = agentFor(checkFixCheck, 1);
    await agentsRun(agent, 'deploy web');
    expectCompleted(model.prompts);
    await h.close();
  });

  it('MaxTurnsExceededError is max_turns', async () => {
    instrumentation.setConfig({ guard: useGuard().guard });
    const { agent } = agentFor(checkFixCheck, 0);
    const err = await agentsRun(agent, 'deploy web', { maxTurns: 2 }).then(() => undefined, (e: unknown) => e);
    expect((err as Error).name).toBe('MaxTurnsExceededError');
    expect(root().attributes['loopguard.run.exit_reason']).toBe('max_turns');
    expect(completions).toMatchObject([{ exitReason: 'max_turns' }]);
    await h.close();
  });
});
