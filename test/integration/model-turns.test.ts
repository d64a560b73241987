import { readFileSync } from 'node:fs';
import { context, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { LoopBreakError } from '../../instrumentation/index.js';
import { createHarness, type Harness } from '../support/harness.js';

/** One model response as an instrumented LLM client records it (GenAI semantic conventions; `text` as captured output messages). */
function respond(h: Harness, outputTokens: number, finishReason: string, text?: string): void {
  const attributes: Attributes = { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.output_tokens': outputTokens, 'gen_ai.response.finish_reasons': [finishReason] };
  if (text !== undefined) attributes['gen_ai.output.messages'] = JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: text }], finish_reason: finishReason }]);
  h.provider.getTracer('llm-client').startSpan('chat mock-model', { attributes }).end();
}

function root(h: Harness) {
  return h.spans().find((s) => s.attributes['gen_ai.operation.name'] === 'invoke_agent')!;
}

function modelSpans(h: Harness) {
  return h.spans().filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
}

async function ended(h: Harness): Promise<Record<string, number>> {
  const points = (await h.metrics()).get('loopguard.runs.ended') ?? [];
  return Object.fromEntries(points.map((p) => [String(p.attributes.reason), p.value]));
}

describe('model turns: output-token budget', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('tells the model at 90 % (on the next tool result, once) and stops the run at the budget with reason budget', async () => {
    h = createHarness({ maxOutputTokens: 10_000 });
    const read = h.guard.wrapTool('read', (path: string) => `contents of ${path}`);
    const seen: unknown[] = [];
    const run = h.guard.run('writer', async () => {
      respond(h, 4_000, 'tool_calls');
      seen.push(await read('a'));
      respond(h, 5_200, 'tool_calls');
      seen.push(await read('b'));
      seen.push(await read('c'));
      respond(h, 1_000, 'tool_calls');
      await read('d');
    });
    const err = await run.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LoopBreakError);
    expect((err as LoopBreakError).reason).toBe('budget');
    expect(seen[0]).toBe('contents of a');
    expect(seen[1]).toMatch(/^contents of b\n\n\[loopguard notice\] Output token budget: 9200 of 10000 tokens used \(92 %\)\. Keep working.*do not summarise/);
    expect(seen[2]).toBe('contents of c');
    expect(modelSpans(h).map((s) => s.attributes['loopguard.level'])).toEqual([undefined, undefined, 'break']);
    expect(modelSpans(h)[1]!.events.map((e) => e.name)).toEqual(['loopguard.notice']);
    expect(root(h).attributes['loopguard.run.exit_reason']).toBe('budget');
    expect(await ended(h)).toEqual({ budget: 1 });
  });

  it('takes a run its own budget from guard.run, and leaves runs without one alone', async () => {
    h = createHarness();
    const tool = h.guard.wrapTool('noop', () => 'ok');
    await h.guard.run('unbudgeted', async () => {
      respond(h, 50_000, 'stop');
      await tool();
    });
    const err = await h.guard
      .run('budgeted', async () => {
        respond(h, 600, 'stop');
        await tool();
      }, { maxOutputTokens: 500 })
      .catch((e: unknown) => e);
    expect((err as LoopBreakError).reason).toBe('budget');
    expect(await ended(h)).toEqual({ completed: 1, budget: 1 });
  });

  it('is a budget fuse: disable budget turns it off, a run\'s own budget included', async () => {
    h = createHarness({ maxOutputTokens: 1_000, disable: ['budget'] });
    const tool = h.guard.wrapTool('noop', () => 'ok');
    await h.guard.run('unlimited', async () => {
      respond(h, 5_000, 'stop');
      await tool();
    }, { maxOutputTokens: 100 });
    expect(modelSpans(h).map((s) => s.attributes['loopguard.level'])).toEqual([undefined]);
    expect(root(h).attributes['loopguard.run.exit_reason']).toBe('completed');
  });

  it('stops on diminishing returns: after 3 continuations, two in a row adding under 500 tokens', async () => {
    h = createHarness({ maxOutputTokens: 100_000 });
    const tool = h.guard.wrapTool('noop', () => 'ok');
    const err = await h.guard
      .run('rambler', async () => {
        for (const tokens of [3_000, 2_000, 1_500, 1_200, 300, 200]) respond(h, tokens, 'stop');
        await tool();
      })
      .catch((e: unknown) => e);
    expect((err as LoopBreakError).reason).toBe('diminishing-returns');
    expect(modelSpans(h).map((s) => s.attributes['loopguard.level'])).toEqual([undefined, undefined, undefined, undefined, undefined, 'break']);
    expect(modelSpans(h)[4]!.events.map((e) => [e.name, e.attributes?.['loopguard.detector']])).toEqual([['loopguard.notice', 'diminishing-returns']]);
    expect(root(h).attributes['loopguard.run.exit_reason']).toBe('budget');
  });

  it('does not judge continuations without a budget, nor short turns that call tools', async () => {
    h = createHarness({ maxOutputTokens: 100_000 });
    const tool = h.guard.wrapTool('lookup', (n: number) => n * 2);
    await h.guard.run('worker', async () => {
      for (let i = 0; i < 8; i++) {
        respond(h, 80, 'tool_calls');
        await tool(i);
      }
      respond(h, 120, 'stop');
    });
    expect(modelSpans(h).every((s) => s.attributes['loopguard.level'] === undefined)).toBe(true);
    expect(root(h).attributes['loopguard.run.exit_reason']).toBe('completed');
  });

  it('counts short answers with tool calls between them (a support chat; Gemini says STOP even with tool calls) as work, not continuations', async () => {
    h = createHarness({ maxOutputTokens: 100_000 });
    const lookup = h.guard.wrapTool('lookup_order', (id: string) => ({ id, status: 'shipped' }));
    await h.guard.run('support', async () => {
      for (const id of ['A1', 'B2', 'C3', 'D4', 'E5', 'F6']) {
        respond(h, 60, 'STOP');
        await lookup(id);
      }
      respond(h, 40, 'STOP');
    });
    expect(modelSpans(h).every((s) => s.attributes['loopguard.level'] === undefined)).toBe(true);
    expect(root(h).attributes['loopguard.run.exit_reason']).toBe('completed');
  });
});

describe('model turns: several messages', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('gives a truncation its recovery message after the budget notice was given', async () => {
    h = createHarness({ maxOutputTokens: 10_000 });
    const write = h.guard.wrapTool('write_file', (n: number) => `wrote part ${n}`);
    const results: unknown[] = [];
    await h.guard.run('writer', async () => {
      respond(h, 9_000, 'tool_calls');
      results.push(await write(1));
      respond(h, 500, 'length');
      results.push(await write(2));
    });
    expect(results[0]).toMatch(/\[loopguard notice\] Output token budget: 9000 of 10000/);
    expect(results[1]).toMatch(/\[loopguard notice\] Output limit hit: continue from where you stopped/);
  });
});

describe('model turns: truncations', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('nudges a truncated response to continue, warns at the second in a row, stops at the third with reason truncation', async () => {
    h = createHarness();
    const write = h.guard.wrapTool('write_file', (args: { path: string }) => `wrote ${args.path}`);
    const results: unknown[] = [];
    const err = await h.guard
      .run('coder', async () => {
        for (let i = 0; i < 4; i++) {
          respond(h, 4_096, 'length');
          results.push(await write({ path: `f${i}` }));
        }
      })
      .catch((e: unknown) => e);
    expect((err as LoopBreakError).reason).toBe('truncation');
    expect(results[0]).toMatch(/\[loopguard notice\] Output limit hit: continue from where you stopped, no apology, no recap, split the rest into smaller pieces\./);
    expect(results[1]).toMatch(/\[loopguard warning\] Output limit hit.*If the next response is cut off too, the run will be stopped\./);
    expect(results).toHaveLength(2);
    expect(modelSpans(h).map((s) => s.attributes['loopguard.level'])).toEqual([undefined, 'warning', 'break']);
    expect(root(h).attributes['loopguard.run.exit_reason']).toBe('truncation');
    expect(root(h).attributes['loopguard.run.stop_reason']).toBe('truncation');
  });

  it('gives a single truncation that was recovered its nudge and nothing more', async () => {
    h = createHarness({ maxOutputTokens: 0 });
    const write = h.guard.wrapTool('write_file', (args: { path: string }) => `wrote ${args.path}`);
    const results: unknown[] = [];
    await h.guard.run('coder', async () => {
      respond(h, 4_096, 'max_tokens');
      results.push(await write({ path: 'a' }));
      respond(h, 900, 'tool_use');
      results.push(await write({ path: 'b' }));
      respond(h, 4_096, 'length');
      results.push(await write({ path: 'c' }));
      respond(h, 300, 'stop');
    });
    expect(results[0]).toMatch(/\[loopguard notice\] Output limit hit/);
    expect(results[1]).toBe('wrote b');
    expect(results[2]).toMatch(/\[loopguard notice\] Output limit hit/);
    expect(modelSpans(h).every((s) => s.attributes['loopguard.level'] === undefined)).toBe(true);
    expect(root(h).attributes['loopguard.run.exit_reason']).toBe('completed');
  });

  it('is off with maxTruncations 0', async () => {
    h = createHarness({ maxTruncations: 0 });
    const write = h.guard.wrapTool('write_file', (n: number) => `wrote part ${n}`);
    const results: unknown[] = [];
    await h.guard.run('coder', async () => {
      for (let i = 0; i < 5; i++) {
        respond(h, 4_096, 'length');
        results.push(await write(i));
      }
    });
    expect(results).toEqual([0, 1, 2, 3, 4].map((n) => `wrote part ${n}`));
  });
});

describe('loopguard.run.exit_reason', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('says completed, error, aborted or loop_break, and counts runs.ended by reason', async () => {
    h = createHarness();
    const same = h.guard.wrapTool('same', () => 'same');
    const tool = h.guard.wrapTool('noop', () => 'ok');
    await h.guard.run('fine', async () => void (await tool()));
    await h.guard.run('fails', async () => {
      await tool();
      throw new Error('agent crashed');
    }).catch(() => undefined);
    await h.guard.run('cancelled', async () => {
      await tool();
      throw Object.assign(new Error('cancelled'), { name: 'AbortError' });
    }).catch(() => undefined);
    await h.guard.run('looping', async () => {
      for (let i = 0; i < 20; i++) await same();
    }).catch(() => undefined);
    const reasons = h
      .spans()
      .filter((s) => s.attributes['gen_ai.operation.name'] === 'invoke_agent')
      .map((s) => [s.attributes['loopguard.run.name'], s.attributes['loopguard.run.exit_reason']]);
    expect(reasons).toEqual([
      ['fine', 'completed'],
      ['fails', 'error'],
      ['cancelled', 'aborted'],
      ['looping', 'loop_break'],
    ]);
    expect(await ended(h)).toEqual({ completed: 1, error: 1, aborted: 1, loop_break: 1 });
    expect(trace.getActiveSpan()).toBeUndefined();
  });
});

describe('model turns: the same answer restated', () => {
  let h: Harness;
  afterEach(() => h.close());

  const answer = (variant: string) =>
    `I could not find an order with that number in the system. Please check the confirmation email for the exact order number, ${variant}, and I will look it up again straight away for you.`;

  it('warns when one long answer is given a third time (near-identical wording too) and stops the run at the fifth', async () => {
    h = createHarness();
    const lookup = h.guard.wrapTool('lookup_order', (id: string) => ({ id, found: false }));
    const results: unknown[] = [];
    const err = await h.guard
      .run('support', async () => {
        for (const [i, variant] of ['it starts with A', 'it starts with A', 'it usually starts with A', 'it starts with A', 'it starts with A'].entries()) {
          respond(h, 60, 'stop', answer(variant));
          results.push(await lookup(`A-${i}`));
        }
      })
      .catch((e: unknown) => e);
    expect((err as LoopBreakError).reason).toBe('repeated-answer');
    expect(modelSpans(h).map((s) => s.attributes['loopguard.level'])).toEqual([undefined, undefined, 'warning', 'warning', 'break']);
    expect(JSON.stringify(results[2])).toContain('You have given nearly the same answer 3 times');
    expect(root(h).attributes['loopguard.run.exit_reason']).toBe('loop_break');
  });

  it('leaves different answers, and short identical ones, alone', async () => {
    h = createHarness();
    await h.guard.run('chat', async () => {
      for (const variant of ['it starts with A', 'or the invoice number on the receipt', 'the twelve digits under the barcode', 'the reference printed on the parcel label']) {
        respond(h, 60, 'stop', `Thanks. ${variant} is what I need: ${'with it I can search the whole order history and the shipping records of your account. '.repeat(variant.length % 2 + 1)}`);
      }
      for (let i = 0; i < 6; i++) respond(h, 3, 'stop', 'Done.');
    });
    expect(modelSpans(h).every((s) => s.attributes['loopguard.level'] === undefined)).toBe(true);
  });
});

describe('model turns: chanting (a response repeating one passage within itself)', () => {
  let h: Harness;
  afterEach(() => h.close());

  const chant = (passage: string, times: number) => `Let me look at this again. ${`${passage} `.repeat(times)}`;

  it('warns at the first chanting response (the nudge names it), stops the run at the second with reason chanting', async () => {
    h = createHarness();
    const search = h.guard.wrapTool('search', (q: string) => `3 results for ${q}`);
    const results: unknown[] = [];
    const err = await h.guard
      .run('researcher', async () => {
        respond(h, 2_000, 'stop', chant('I need to check the documentation for the retry policy first.', 30));
        results.push(await search('retry policy'));
        respond(h, 8_192, 'length', chant('The retry policy is described in the second section of the guide.', 60));
        results.push(await search('retry guide'));
      })
      .catch((e: unknown) => e);
    expect((err as LoopBreakError).reason).toBe('chanting');
    expect(results[0]).toMatch(/\[loopguard warning\] Your last response repeated the same passage 30 times\./);
    const spans = modelSpans(h);
    expect(spans.map((s) => s.attributes['loopguard.level'])).toEqual(['warning', 'break']);
    // Worked out from the captured output messages, so the span says it too.
    expect(spans.map((s) => s.attributes['loopguard.output.repetition'])).toEqual([30, 60]);
    expect(spans[1]!.events.find((e) => e.name === 'loopguard.loop_detected')?.attributes).toMatchObject({ 'loopguard.detector': 'chanting', 'loopguard.count': 2 });
    expect(root(h).attributes['loopguard.run.exit_reason']).toBe('loop_break');
    expect((await h.metrics()).get('loopguard.detections')?.map((p) => p.attributes.detector)).toContain('chanting');
  });

  it('leaves tables, lists, code and a long report alone', async () => {
    h = createHarness();
    const row = '| orders-db | primary | healthy | 0 errors in the last hour |\n';
    const answers = [
      `Status of the fleet:\n\n| name | role | state | note |\n|---|---|---|---|\n${row.repeat(40)}`,
      `Plan:\n${'- rerun the migration for the customer records table\n'.repeat(30)}`,
      `The fix:\n\n\`\`\`ts\n${'expect(response.status).toBe(200); // every endpoint answers\n'.repeat(30)}\`\`\`\n`,
      Array.from({ length: 40 }, (_, i) => `Service svc-${i} handled ${1000 + i * 37} requests with a p99 latency of ${120 + i} ms.`).join(' '),
    ];
    await h.guard.run('reporter', async () => {
      for (const text of answers) respond(h, 1_500, 'stop', text);
    });
    expect(modelSpans(h).map((s) => [s.attributes['loopguard.level'], s.attributes['loopguard.output.repetition']])).toEqual(answers.map(() => [undefined, undefined]));
  });

  it('is off with maxChantingResponses 0, and a chanting response cut off is judged as chanting, not as a first truncation', async () => {
    h = createHarness({ maxChantingResponses: 0 });
    await h.guard.run('a', async () => respond(h, 8_192, 'length', chant('Checking the logs once more now.', 50)));
    expect(modelSpans(h)[0]!.attributes['loopguard.level']).toBeUndefined();
    await h.close();
    h = createHarness({ maxChantingResponses: 1 });
    const err = await h.guard
      .run('b', async () => {
        respond(h, 8_192, 'length', chant('Checking the logs once more now.', 50));
        await h.guard.wrapTool('noop', () => 'ok')();
      })
      .catch((e: unknown) => e);
    expect((err as LoopBreakError).reason).toBe('chanting');
  });
});

describe('model turns: every LLM span dialect', () => {
  let h: Harness;
  afterEach(() => h.close());

  const cutOffSpans: Record<string, Attributes> = {
    'ai-sdk': { 'ai.operationId': 'ai.generateText.doGenerate', 'ai.usage.outputTokens': 4_096, 'ai.response.finishReason': 'length' },
    openinference: { 'openinference.span.kind': 'LLM', 'llm.token_count.completion': 4_096, 'llm.finish_reason': 'length' },
    traceloop: { 'llm.request.type': 'chat', 'gen_ai.usage.completion_tokens': 4_096, 'gen_ai.completion.0.finish_reason': 'length' },
  };

  for (const [dialect, attributes] of Object.entries(cutOffSpans)) {
    it(`reads ${dialect} LLM spans: three truncations in a row stop the run with reason truncation`, async () => {
      h = createHarness();
      await h.guard.run('writer', async () => {
        for (let i = 0; i < 3; i++) h.provider.getTracer('llm').startSpan('llm', { attributes }).end();
      });
      expect(h.spans().filter((s) => s.attributes['loopguard.level'] !== undefined).map((s) => s.attributes['loopguard.level'])).toEqual(['warning', 'break']);
      expect(root(h).attributes['loopguard.run.exit_reason']).toBe('truncation');
    });
  }

  // What each instrumentation leaves of a model call that threw (refused, rate-limited, timed out): its LLM span, no usage, an error.
  const failedCalls: Record<string, { attributes: Attributes; status: boolean }> = {
    'genai (@ai-sdk/otel)': { attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'm', 'error.type': 'AI_APICallError' }, status: true },
    'ai-sdk': { attributes: { 'ai.operationId': 'ai.generateText.doGenerate', 'ai.model.id': 'm' }, status: true },
    openinference: { attributes: { 'openinference.span.kind': 'LLM', 'llm.model_name': 'm' }, status: true },
    traceloop: { attributes: { 'llm.request.type': 'chat', 'gen_ai.request.model': 'm' }, status: true },
    'genai, error.type only': { attributes: { 'gen_ai.operation.name': 'chat', 'error.type': '429' }, status: false },
  };

  for (const [shape, { attributes, status }] of Object.entries(failedCalls)) {
    it(`does not count a failed model call as a response: ${shape}`, async () => {
      h = createHarness();
      const tracer = h.provider.getTracer('llm');
      await h.guard.run('writer', async () => {
        // Cut off, the retry fails, then cut off twice more: three responses in a row cut off.
        tracer.startSpan('llm', { attributes: cutOffSpans.openinference }).end();
        const failed = tracer.startSpan('failed call', { attributes });
        if (status) failed.setStatus({ code: SpanStatusCode.ERROR, message: 'rate limited' });
        failed.end();
        for (let i = 0; i < 2; i++) tracer.startSpan('llm', { attributes: cutOffSpans.openinference }).end();
      });
      expect(h.spans().filter((s) => s.attributes['loopguard.level'] !== undefined).map((s) => s.attributes['loopguard.level'])).toEqual(['warning', 'break']);
      const failedSpan = h.spans().find((s) => s.name === 'failed call')!;
      expect(failedSpan.events).toEqual([]);
      expect(Object.keys(failedSpan.attributes).filter((k) => k.startsWith('loopguard.'))).toEqual([]);
      expect(root(h).attributes['loopguard.run.exit_reason']).toBe('truncation');
    });
  }

  it('counts a framework LLM span around the provider client LLM span as one response', async () => {
    h = createHarness();
    const tracer = h.provider.getTracer('llm');
    await h.guard.run('writer', async () => {
      for (let i = 0; i < 2; i++) {
        const outer = tracer.startSpan('ChatOpenAI', { attributes: cutOffSpans.openinference });
        tracer.startSpan('openai.chat', { attributes: cutOffSpans.traceloop }, trace.setSpan(context.active(), outer)).end();
        outer.end();
      }
    });
    // Two responses in a row cut off: a warning, not the break four would be.
    expect(h.spans().filter((s) => s.attributes['loopguard.level'] !== undefined).map((s) => [s.name, s.attributes['loopguard.level']])).toEqual([['openai.chat', 'warning']]);
    expect(root(h).attributes['loopguard.run.exit_reason']).toBe('completed');
  });
});

/** Attributes of the spans recorded from one real instrumentation run (test/unit/dialects/fixtures), by span name. */
function recorded(file: string, fragment: string): Map<string, Attributes> {
  const fixtures = JSON.parse(readFileSync(new URL(`../unit/dialects/fixtures/${file}`, import.meta.url), 'utf8')) as Array<{ source: string; span: { name: string; attributes: Attributes } }>;
  return new Map(fixtures.filter((f) => f.source.includes(fragment)).map((f) => [f.span.name, f.span.attributes]));
}

describe('model turns: the total-token fuse (maxTokens) counts each response once', () => {
  let h: Harness;
  afterEach(() => h.close());

  /** Spans nested as `names` lists them, outermost first, each with its recorded attributes. */
  function nested(spans: Map<string, Attributes>, names: string[]): void {
    const tracer = h.provider.getTracer('framework');
    const open: Span[] = [];
    for (const name of names) {
      const parent = open.at(-1);
      open.push(tracer.startSpan(name, { attributes: spans.get(name)! }, parent ? trace.setSpan(context.active(), parent) : context.active()));
    }
    for (const span of open.reverse()) span.end();
  }

  // One response of 1200 input + 4096 output tokens: 5296 of 6000 is a warning (88 %); counted twice it would be a break.
  async function levelAfter(response: () => void): Promise<unknown> {
    const tool = h.guard.wrapTool('read', (path: string) => `contents of ${path}`);
    await h.guard.run('writer', async () => {
      response();
      await tool('a');
    }).catch(() => undefined);
    return h.toolSpans()[0]!.attributes['loopguard.level'];
  }

  it('AI SDK 7 with @ai-sdk/otel: usage on the chat span and again on the invoke_agent span around it', async () => {
    h = createHarness({ maxTokens: 6_000 });
    const spans = recorded('llm-ai-sdk-v7-otel.json', ' OpenTelemetry, defaults');
    expect(await levelAfter(() => nested(spans, ['invoke_agent mock-model-id', 'step 1', 'chat mock-model-id']))).toBe('warning');
  });

  it('AI SDK 6 built-in telemetry: ai.usage.* on doGenerate and the generateText span around it', async () => {
    h = createHarness({ maxTokens: 6_000 });
    const spans = recorded('llm-ai-sdk-v6.json', 'telemetry full');
    expect(await levelAfter(() => nested(spans, ['ai.generateText', 'ai.generateText.doGenerate']))).toBe('warning');
  });

  it('OpenInference: the LLM span\'s token counts, not a chain span carrying the same totals', async () => {
    h = createHarness({ maxTokens: 6_000 });
    const spans = recorded('llm-openinference-langchain.json', '');
    const llm = spans.get('CutOffChatModel')!;
    const totals = Object.fromEntries(Object.entries(llm).filter(([key]) => key.startsWith('llm.token_count.')));
    spans.set('RunnableSequence', { 'openinference.span.kind': 'CHAIN', ...totals });
    expect(await levelAfter(() => nested(spans, ['RunnableSequence', 'CutOffChatModel']))).toBe('warning');
  });

  it('counts nothing from agent spans alone', async () => {
    h = createHarness({ maxTokens: 6_000 });
    const spans = recorded('llm-ai-sdk-v7-otel.json', ' OpenTelemetry, defaults');
    expect(await levelAfter(() => nested(spans, ['invoke_agent mock-model-id', 'step 1']))).toBeUndefined();
  });
});

describe('model turns: tool calls cut in half', () => {
  let h: Harness;
  afterEach(() => h.close());

  const cutJson = (n: number) => `{"path": "report.md", "content": "# Results\\n\\nAttempt ${n}: the first run scored 0.8 and`;

  /** A tool span as another instrumentation records a call whose arguments did not parse (OpenInference TOOL span). */
  function failedToolSpan(h: Harness, args: string): void {
    const span = h.provider.getTracer('tools').startSpan('write_file', {
      attributes: { 'openinference.span.kind': 'TOOL', 'tool.name': 'write_file', 'input.value': args },
    });
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'SyntaxError: Unterminated string in JSON at position 80' });
    span.end();
  }

  it('counts a cut-off call with the truncated response before it: marked, not a tool call, the truncations go on to the stop', async () => {
    h = createHarness();
    await h.guard.run('coder', async () => {
      for (let i = 0; i < 3; i++) {
        respond(h, 8_192, 'length');
        failedToolSpan(h, cutJson(i));
      }
    });
    const tools = h.spans().filter((s) => s.attributes['openinference.span.kind'] === 'TOOL');
    expect(tools.map((s) => [s.attributes['loopguard.call.cut_off'], s.attributes['loopguard.step']])).toEqual([[true, undefined], [true, undefined], [true, undefined]]);
    expect(modelSpans(h).map((s) => s.attributes['loopguard.level'])).toEqual([undefined, 'warning', 'break']);
    expect(root(h).attributes['loopguard.run.stop_reason']).toBe('truncation');
    expect(root(h).attributes['loopguard.run.tool_calls']).toBe(0);
  });

  it('counts the guarded call whose raw arguments were cut off the same way', async () => {
    h = createHarness();
    const write = h.guard.wrapTool('write_file', (raw: string) => JSON.parse(raw) as unknown);
    await h.guard.run('coder', async () => {
      respond(h, 8_192, 'length');
      await write(cutJson(0)).catch(() => undefined);
      respond(h, 900, 'tool_calls');
      await write('{"path": "report.md", "content": "short"}');
    });
    expect(h.toolSpans().map((s) => [s.attributes['loopguard.call.cut_off'], s.attributes['loopguard.step']])).toEqual([[true, undefined], [undefined, 1]]);
  });

  it('records the same failure without a truncated response before it as the failed call it is', async () => {
    h = createHarness();
    await h.guard.run('coder', async () => {
      respond(h, 900, 'tool_calls');
      failedToolSpan(h, cutJson(0));
    });
    const [tool] = h.spans().filter((s) => s.attributes['openinference.span.kind'] === 'TOOL');
    expect(tool!.attributes['loopguard.call.cut_off']).toBeUndefined();
    expect(tool!.attributes['loopguard.step']).toBe(1);
  });
});
