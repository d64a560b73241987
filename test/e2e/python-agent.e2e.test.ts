/**
 * Scenario: an agent written in Python with the OpenTelemetry Python SDK
 * (test/e2e/agents/python/genai_agent.py), emitting GenAI execute_tool spans
 * to the loopguard collector, which forwards them to Jaeger. The collector
 * detects the loop, and the Python agent reads its own verdict from
 * `GET /v1/runs/{key}` after each call and stops when told `stopped: true`.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { runAgent } from './scenarios/agent-process.js';
import { expectNormalRunInJaeger, expectStoppedRunInJaeger } from './scenarios/jaeger-runs.js';
import { pythonAgent as pythonAgentFor, splitPythonRun as split, type PythonAgentLine } from './scenarios/python-agent.js';
import { ensurePythonEnv, type PythonEnv } from './scenarios/python-env.js';
import { trackServices } from './scenarios/running-services.js';
import {
  jaegerTag,
  loopguardRunVerdict,
  startJaeger,
  startLoopguardCollector,
  type JaegerInstance,
  type LoopguardCollectorInstance,
} from './support/index.js';

const services = trackServices();
let python: PythonEnv;
let jaeger: JaegerInstance;
let loopguard: LoopguardCollectorInstance;

beforeAll(async () => {
  // Cold: creates the venv and pip-installs the SDK (about 15 s); warm: reads a stamp.
  python = ensurePythonEnv();
  if (python.installSeconds > 0) console.info(`installed the OpenTelemetry Python SDK into ${python.dir} in ${python.installSeconds}s`);
  await services.starting(async () => {
    jaeger = await startJaeger();
    services.add(jaeger);
    loopguard = await startLoopguardCollector({ forwardEndpoint: jaeger.otlpHttpUrl, env: { LOOPGUARD_COLLECTOR_BATCH_INTERVAL_MS: '100' } });
    services.add(loopguard);
  });
}, 420_000);

const pythonAgent = (service: string, mode: 'looping' | 'normal', extra: readonly string[] = []) =>
  pythonAgentFor(python, loopguard.url, service, mode, extra);

describe('Python agent (OpenTelemetry Python SDK) -> loopguard collector -> Jaeger', () => {
  it('a looping agent keyed by its trace id is stopped by its own verdict read', async () => {
    const service = `e2e-python-${randomUUID().slice(0, 8)}`;
    const maxSteps = 30;
    const { steps, run } = split((await runAgent<PythonAgentLine>(pythonAgent(service, 'looping', ['--max-steps', String(maxSteps)]))).lines);

    expect(run.run_key).toBe(run.trace_id);
    expect(run.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(run.stopped).toBe(true);
    // It stopped at the first verdict that said so, well before its own limit.
    expect(run.tool_calls).toBeLessThan(maxSteps);
    expect(steps.map((step) => step.step)).toEqual(Array.from({ length: run.tool_calls }, (_, index) => index + 1));
    expect(steps.slice(0, -1).every((step) => step.verdict?.stopped !== true)).toBe(true);
    // Each verdict counts the calls made so far: the collector saw every span before the agent asked.
    expect(steps.map((step) => step.verdict?.toolCalls)).toEqual(steps.map((step) => step.step));
    expect(run.verdict).toMatchObject({ runKey: run.trace_id, stopped: true, level: 'break', toolCalls: run.tool_calls });
    expect(run.verdict!.last).toMatchObject({ level: 'break', step: run.tool_calls, tool: 'search_orders' });
    expect(run).toMatchObject({ exported_spans: run.tool_calls + 1, failed_spans: 0 });

    // The same verdict from outside, and the stop in Jaeger.
    expect(await loopguardRunVerdict(loopguard.url, run.trace_id)).toMatchObject({ stopped: true, level: 'break' });
    await expectStoppedRunInJaeger(jaeger.queryUrl, {
      service,
      traceId: run.trace_id,
      spans: run.tool_calls + 1,
      toolCalls: run.tool_calls,
      tool: 'search_orders',
      breakStep: run.tool_calls,
      reason: run.verdict!.stopReason!,
    });
  });

  it('a looping agent with gen_ai.conversation.id reads its verdict under that id', async () => {
    const service = `e2e-python-conv-${randomUUID().slice(0, 8)}`;
    const conversationId = `conv/${randomUUID()}`;
    const { run } = split((await runAgent<PythonAgentLine>(pythonAgent(service, 'looping', ['--conversation-id', conversationId]))).lines);

    expect(run.run_key).toBe(conversationId);
    expect(run.stopped).toBe(true);
    expect(run.verdict).toMatchObject({ runKey: conversationId, stopped: true, level: 'break', toolCalls: run.tool_calls });
    // Keyed by the conversation, not by the trace.
    expect(await loopguardRunVerdict(loopguard.url, run.trace_id)).toBeUndefined();

    const { root } = await expectStoppedRunInJaeger(jaeger.queryUrl, {
      service,
      traceId: run.trace_id,
      spans: run.tool_calls + 1,
      toolCalls: run.tool_calls,
      tool: 'search_orders',
      breakStep: run.tool_calls,
    });
    expect(jaegerTag(root, 'gen_ai.conversation.id')).toBe(conversationId);
  });

  it('a normal agent runs to its end and is never told to stop', async () => {
    const service = `e2e-python-normal-${randomUUID().slice(0, 8)}`;
    const maxSteps = 12;
    const { steps, run } = split((await runAgent<PythonAgentLine>(pythonAgent(service, 'normal', ['--max-steps', String(maxSteps)]))).lines);

    expect(run.tool_calls).toBe(maxSteps);
    expect(run.stopped).toBe(false);
    expect(steps.map((step) => step.verdict?.level ?? null)).toEqual(steps.map(() => null));
    expect(run.verdict).toMatchObject({ runKey: run.trace_id, stopped: false, level: null, detections: 0, toolCalls: maxSteps });
    await expectNormalRunInJaeger(jaeger.queryUrl, { traceId: run.trace_id, spans: maxSteps + 1, toolCalls: maxSteps });
  });
});
