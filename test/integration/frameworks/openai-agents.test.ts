import { Agent, ToolCallError, run, setTracingDisabled, tool } from '@openai/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isLoopBreak, type LoopEvent } from '../../../instrumentation/index.js';
import { OpenAIAgentsInstrumentation } from '../../../instrumentation/adapters/openai-agents/instrumentation.js';
import { LoopBreakError } from '../../../src/breaker.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { ScriptedAgentsModel } from './support/agents-model.js';
import { exploringSearch, firstSteps, referenceSteps, repeatedSearch, type ScriptedCall } from './support/trajectory.js';

let instrumentation: OpenAIAgentsInstrumentation;
let h: Harness;
let events: LoopEvent[];

function useGuard() {
  events = [];
  h = createHarness({ onLoop: (e) => void events.push(e) });
  instrumentation.setConfig({ guard: h.guard });
}

beforeAll(async () => {
  // The SDK's own tracing exports to OpenAI's servers: never from tests.
  setTracingDisabled(true);
  instrumentation = new OpenAIAgentsInstrumentation({ guard: createHarness().guard });
  await instrumentation.ready;
});
afterAll(() => instrumentation.disable());

function agentFor(calls: ScriptedCall[], toolOutputs: string[]) {
  const answers = new Map(calls.map((c) => [String(c.args.query), c.result]));
  const search = tool({
    name: 'search',
    description: 'search the web',
    parameters: z.object({ query: z.string() }),
    execute: async ({ query }) => answers.get(query) ?? 'nothing',
  });
  const model = new ScriptedAgentsModel(calls);
  const agent = new Agent({ name: 'researcher', instructions: 'answer', model, tools: [search] });
  // What the model reads back for each call.
  agent.on('agent_tool_end', (_context, _tool, result) => void toolOutputs.push(String(result)));
  return { agent, model };
}

describe('OpenAI Agents SDK adapter', () => {
  it('routes function tools through the guard with the call id', async () => {
    useGuard();
    const outputs: string[] = [];
    const { agent } = agentFor(exploringSearch(2), outputs);
    const result = await h.guard.run('agents', () => run(agent, 'weather?', { maxTurns: 10 }));
    expect(result.finalOutput).toBe('done');
    const spans = h.toolSpans();
    expect(spans.map((s) => s.attributes['gen_ai.tool.call.id'])).toEqual(['call_1', 'call_2']);
    expect(spans[0]!.attributes['loopguard.args.hash']).toMatch(/^[0-9a-f]{16}$/);
    expect(spans[1]!.attributes['loopguard.step']).toBe(2);
    await h.close();
  });

  it('detects the loop at the wrapTool steps; blocked calls answer "not executed", the break rejects run()', async () => {
    const calls = repeatedSearch(12);
    const reference = await referenceSteps(calls);
    useGuard();
    const outputs: string[] = [];
    const { agent, model } = agentFor(calls, outputs);
    const err = await h.guard.run('agents-loop', () => run(agent, 'weather?', { maxTurns: 30 })).then(() => undefined, (e: unknown) => e);
    expect(firstSteps(events)).toEqual(reference);
    // The runner wraps the break in a ToolCallError; run() rejects with the LoopBreakError itself.
    expect(err).toBeInstanceOf(LoopBreakError);
    expect(isLoopBreak(new ToolCallError('Failed to run function tools', err as LoopBreakError))).toBe(true);
    // What the model read: real results, one with the nudge appended, then the "not executed" answers.
    expect(outputs.filter((o) => o.startsWith('Sunny, 21°C\n\n[loopguard')).length).toBeGreaterThan(0);
    expect(outputs.slice(reference.critical! - 1).every((o) => !o.startsWith('Sunny'))).toBe(true);
    expect(model.prompts[reference.warning!]).toContain('[loopguard warning]');
    expect(model.prompts[reference.critical!]).toContain('NOT executed');
    expect(model.prompts).toHaveLength(reference.break!);
    const actions = h.toolSpans().map((s) => s.attributes['loopguard.action'] ?? '-');
    expect(actions.filter((a) => a === 'block').length).toBe(reference.break! - reference.critical!);
    await h.close();
  });

  it('a normal multi-step run produces no verdict', async () => {
    useGuard();
    const outputs: string[] = [];
    const { agent } = agentFor(exploringSearch(8), outputs);
    const result = await h.guard.run('agents-ok', () => run(agent, 'weather?', { maxTurns: 20 }));
    expect(result.finalOutput).toBe('done');
    expect(events).toEqual([]);
    expect(h.toolSpans()).toHaveLength(8);
    await h.close();
  });
});
