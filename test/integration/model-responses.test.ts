import { trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { LoopBreakError, type LoopEvent } from '../../instrumentation/index.js';
import type { Detection } from '../../src/processor.js';
import { createHarness, type Harness } from '../support/harness.js';

let h: Harness;
afterEach(() => h.close());

const SECRET = 'sk-live-PRIVATE-4711';
/** A long answer (compared by its sketch) carrying text that must not leave the process. */
const ANSWER = `The staging key is ${SECRET} and the deployment failed because the migration timed out while the backup job held the schema lock, so the rollout was aborted.`;

function chatSpans(h: Harness) {
  return h.spans().filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
}

/** The chat span an LLM client instrumentation makes for one response. */
function clientResponse(h: Harness, outputTokens: number): void {
  h.provider.getTracer('llm-client').startSpan('chat m', { attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.output_tokens': outputTokens } }).end();
}

function root(h: Harness) {
  return h.spans().find((s) => s.parentSpanContext === undefined)!;
}

describe('guard.recordModelResponse: model responses seen in process', () => {
  it('makes one chat span per response with what the processor reads, and the text only as its sketch', async () => {
    h = createHarness();
    await h.guard.run('r', async () => {
      await h.guard.recordModelResponse({ outputTokens: 120, inputTokens: 30, finishReason: 'stop', text: ANSWER, model: 'm-1' }, { attributes: { 'loopguard.framework': 'test' } });
    });
    const [span] = chatSpans(h);
    expect(span!.name).toBe('chat m-1');
    expect(span!.attributes).toMatchObject({
      'gen_ai.usage.output_tokens': 120,
      'gen_ai.usage.input_tokens': 30,
      'gen_ai.response.finish_reasons': ['stop'],
      'loopguard.framework': 'test',
    });
    expect(span!.attributes['loopguard.output.sketch']).toMatch(/\S/);
    expect(span!.parentSpanContext?.spanId).toBe(root(h).spanContext().spanId);
    expect(JSON.stringify(h.spans().map((s) => [s.name, s.attributes, s.events, s.status]))).not.toContain(SECRET);
  });

  it('records the text, cut to the capture limit, only when captureContent allows it', async () => {
    h = createHarness({ captureContent: { maxLength: 40 } });
    await h.guard.run('r', () => h.guard.recordModelResponse({ outputTokens: 10, finishReason: 'stop', text: ANSWER }));
    const messages = JSON.parse(String(chatSpans(h)[0]!.attributes['gen_ai.output.messages'])) as Array<{ parts: Array<{ content: string }> }>;
    expect(messages[0]!.parts[0]!.content).toMatch(/^The staging key is .*…\[truncated \d+\]$/);
  });

  it('stamps the framework\'s own open LLM span instead of making a second one, and it is judged once', async () => {
    h = createHarness({ maxOutputTokens: 1_000 });
    const tracer = h.provider.getTracer('framework');
    await h.guard.run('r', async () => {
      const own = tracer.startSpan('chat framework-model', { attributes: { 'gen_ai.operation.name': 'chat' } });
      await h.guard.recordModelResponse({ outputTokens: 950, finishReason: 'stop', text: 'short' }, { span: own });
      own.setAttribute('gen_ai.usage.output_tokens', 950);
      own.end();
    });
    expect(chatSpans(h)).toHaveLength(1);
    expect(chatSpans(h)[0]!.instrumentationScope.name).toBe('framework');
    // 950 of 1000 once: a notice, not the break counting it twice would reach.
    expect(chatSpans(h)[0]!.events.map((e) => e.name)).toEqual(['loopguard.notice']);
    expect(root(h).attributes['loopguard.run.exit_reason']).toBe('completed');
  });

  it('does not count again an LLM span of the run that ends while a recorded model call is in progress', async () => {
    h = createHarness({ maxOutputTokens: 1_000 });
    await h.guard.run('r', async () => {
      const end = h.guard.beginModelCall();
      clientResponse(h, 600);
      end();
      await h.guard.recordModelResponse({ outputTokens: 600, finishReason: 'stop' });
    });
    expect(root(h).attributes['loopguard.run.exit_reason']).toBe('completed');
    await h.close();
    // Outside a marked call, the same span counts: 1200 of 1000 stops the run.
    h = createHarness({ maxOutputTokens: 1_000 });
    await h.guard.run('r', async () => {
      clientResponse(h, 600);
      await h.guard.recordModelResponse({ outputTokens: 600, finishReason: 'stop' });
    });
    expect(root(h).attributes['loopguard.run.exit_reason']).toBe('budget');
  });

  it('hands the waiting message to the next model call once, and never with appendNudge: false', async () => {
    h = createHarness({ maxTruncations: 3 });
    const taken = await h.guard.run('r', async () => {
      await h.guard.recordModelResponse({ outputTokens: 10, finishReason: 'length' });
      return [h.guard.takeModelMessage(), h.guard.takeModelMessage()];
    });
    expect(taken[0]).toMatch(/^\[loopguard notice\] Output limit hit: continue from where you stopped/);
    expect(taken[1]).toBeUndefined();
    await h.close();
    h = createHarness({ appendNudge: false });
    const silent = await h.guard.run('r', async () => {
      await h.guard.recordModelResponse({ outputTokens: 10, finishReason: 'length' });
      return h.guard.takeModelMessage();
    });
    expect(silent).toBeUndefined();
  });

  it('a response that stops the run makes every later model call of the run fail with the LoopBreakError', async () => {
    h = createHarness();
    const seen = await h.guard.run('r', async () => {
      const before = h.guard.stoppedRunError();
      const broke = [];
      for (let i = 0; i < 3; i++) broke.push(await h.guard.recordModelResponse({ outputTokens: 10, finishReason: 'length' }));
      return { before, broke, after: h.guard.stoppedRunError() };
    });
    expect(seen.before).toBeUndefined();
    expect(seen.broke.slice(0, 2)).toEqual([undefined, undefined]);
    expect(seen.broke[2]).toBeInstanceOf(LoopBreakError);
    expect(seen.broke[2]).toMatchObject({ reason: 'truncation', detector: 'truncation', tool: '(model)', evidence: { detector: 'truncation', count: 3 } });
    expect(seen.after).toBeInstanceOf(LoopBreakError);
    expect(seen.after!.reason).toBe('truncation');
    expect(root(h).attributes['loopguard.run.exit_reason']).toBe('truncation');
  });

  it('outside any run there is nothing to record, and nothing throws', async () => {
    h = createHarness();
    expect(trace.getActiveSpan()).toBeUndefined();
    await expect(h.guard.recordModelResponse({ outputTokens: 10, finishReason: 'length' })).resolves.toBeUndefined();
    expect(h.guard.stoppedRunError()).toBeUndefined();
    expect(h.guard.takeModelMessage()).toBeUndefined();
  });
});

describe('onLoop and onDetection on model verdicts', () => {
  it('onLoop is told of a model break with the tool-call fields, and "continue" lifts the stop', async () => {
    const events: LoopEvent[] = [];
    h = createHarness({ onLoop: (e) => (events.push(e), 'continue') });
    const result = await h.guard.run('r', async () => {
      const broke = await h.guard.recordModelResponse({ outputTokens: 600, finishReason: 'stop' });
      return { broke, stopped: h.guard.stoppedRunError(), message: h.guard.takeModelMessage() };
    }, { maxOutputTokens: 500 });
    expect(events.map((e) => [e.level, e.action, e.detector, e.tool])).toEqual([['break', 'break', 'budget', '(model)']]);
    expect(events[0]!.nudge).toMatch(/^\[loopguard break\] The output token budget is used up \(600 of 500 tokens\)/);
    expect(result).toEqual({ broke: undefined, stopped: undefined, message: undefined });
    expect(root(h).attributes['loopguard.run.exit_reason']).toBe('completed');
  });

  it('onLoop answering "break" to a model warning stops the run with reason onLoop', async () => {
    h = createHarness({ onLoop: () => 'break' });
    const broke = await h.guard.run('r', async () => {
      await h.guard.recordModelResponse({ outputTokens: 10, finishReason: 'length' });
      return h.guard.recordModelResponse({ outputTokens: 10, finishReason: 'length' });
    });
    expect(broke).toBeInstanceOf(LoopBreakError);
    expect(broke!.reason).toBe('onLoop');
    expect(root(h).attributes['loopguard.run.stop_reason']).toBe('onLoop');
  });

  it('onDetection is told of model verdicts (not of notices), with the model evidence', async () => {
    const detections: Detection[] = [];
    h = createHarness({ onDetection: (d) => void detections.push(d) });
    await h.guard.run('r', async () => {
      for (let i = 0; i < 3; i++) await h.guard.recordModelResponse({ outputTokens: 10, finishReason: 'length' });
    });
    expect(detections.map((d) => [d.tool, d.decision.level, d.model?.detector, d.model?.score])).toEqual([
      ['(model)', 'warning', 'truncation', 2],
      ['(model)', 'break', 'truncation', 3],
    ]);
  });
});
