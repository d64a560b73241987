import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Attributes } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { readModelSpan, type ModelSpanView } from '../../../src/dialects/model/index.js';

interface Fixture {
  source: string;
  span: { name: string; kind: number; attributes: Attributes };
  expect?: Partial<ModelSpanView>;
}

const dir = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const load = (file: string): Fixture[] => JSON.parse(readFileSync(join(dir, file), 'utf8')) as Fixture[];
const TEXT = 'The report so far: the first run scored 0.8 and the second';

/** The spans of one recording, by name, among the fixtures whose source mentions `fragment`. */
function spans(fixtures: Fixture[], fragment: string): Map<string, Fixture['span']> {
  const found = fixtures.filter((f) => f.source.includes(fragment));
  if (found.length === 0) throw new Error(`no fixture whose source mentions "${fragment}"`);
  return new Map(found.map((f) => [f.span.name, f.span]));
}

describe('LLM spans recorded from ai@6 (built-in telemetry)', () => {
  const fixtures = load('llm-ai-sdk-v6.json');

  it('reads each provider call (doGenerate, doStream) as one response, and not the outer call that sums its steps', () => {
    const recorded = spans(fixtures, 'telemetry full');
    const cutOff = { dialect: 'ai-sdk', inputTokens: 1200, outputTokens: 4096, finishReason: 'length', text: TEXT };
    expect(readModelSpan(recorded.get('ai.generateText.doGenerate')!.attributes)).toEqual(cutOff);
    expect(readModelSpan(recorded.get('ai.streamText.doStream')!.attributes)).toEqual(cutOff);
    expect(readModelSpan(recorded.get('ai.generateText')!.attributes)).toBeUndefined();
    expect(readModelSpan(recorded.get('ai.streamText')!.attributes)).toBeUndefined();
  });

  it('reads usage and finish reason without the text when outputs are not recorded', () => {
    const recorded = spans(fixtures, 'recordOutputs=false');
    expect(readModelSpan(recorded.get('ai.generateText.doGenerate')!.attributes)).toEqual({ dialect: 'ai-sdk', inputTokens: 1200, outputTokens: 4096, finishReason: 'length', text: undefined });
  });
});

describe('LLM spans recorded from ai@7 with @ai-sdk/otel', () => {
  const fixtures = load('llm-ai-sdk-v7-otel.json');

  it('reads the GenAI chat span, not the agent and step spans around it', () => {
    const recorded = spans(fixtures, ' OpenTelemetry, defaults');
    const chat = [...recorded].find(([name]) => name.startsWith('chat'))![1];
    expect(readModelSpan(chat.attributes)).toEqual({ dialect: 'genai', inputTokens: 1200, outputTokens: 4096, finishReason: 'length', text: TEXT });
    for (const [name, span] of recorded) if (!name.startsWith('chat')) expect(readModelSpan(span.attributes), name).toBeUndefined();
  });

  it('reads the chat span without output messages when outputs are not recorded', () => {
    const chat = [...spans(fixtures, ' OpenTelemetry, recordOutputs=false')].find(([name]) => name.startsWith('chat'))![1];
    expect(readModelSpan(chat.attributes)).toEqual({ dialect: 'genai', inputTokens: 1200, outputTokens: 4096, finishReason: 'length', text: undefined });
  });

  it('reads the legacy ai.* names of LegacyOpenTelemetry like ai@6', () => {
    const recorded = spans(fixtures, 'LegacyOpenTelemetry');
    expect(readModelSpan(recorded.get('ai.generateText.doGenerate')!.attributes)).toEqual({ dialect: 'ai-sdk', inputTokens: 1200, outputTokens: 4096, finishReason: 'length', text: TEXT });
    expect(readModelSpan(recorded.get('ai.generateText')!.attributes)).toBeUndefined();
  });
});

describe('LLM spans recorded from the OpenInference LangChain.js instrumentation', () => {
  it('reads the LLM span of a chat model: completion tokens, finish reason, the assistant message', () => {
    const [llm] = load('llm-openinference-langchain.json');
    expect(readModelSpan(llm!.span.attributes)).toEqual({ dialect: 'openinference', inputTokens: 1200, outputTokens: 4096, finishReason: 'length', text: TEXT });
  });

  it('reads multi-part output messages, and leaves messages of other roles out', () => {
    const view = readModelSpan({
      'openinference.span.kind': 'LLM',
      'llm.output_messages.0.message.role': 'assistant',
      'llm.output_messages.0.message.contents.0.message_content.type': 'text',
      'llm.output_messages.0.message.contents.0.message_content.text': 'first part',
      'llm.output_messages.0.message.contents.1.message_content.text': 'second part',
    });
    expect(view?.text).toBe('first part\nsecond part');
    expect(readModelSpan({ 'openinference.span.kind': 'LLM', 'llm.output_messages.0.message.role': 'tool', 'llm.output_messages.0.message.content': 'x' })?.text).toBeUndefined();
    expect(readModelSpan({ 'openinference.span.kind': 'CHAIN', 'llm.token_count.completion': 5 })).toBeUndefined();
  });
});

describe('Traceloop / OpenLLMetry LLM spans (transcribed from its source)', () => {
  for (const fixture of load('llm-traceloop.json')) {
    it(fixture.source.slice(0, 110), () => {
      expect(readModelSpan(fixture.span.attributes)).toEqual(expect.objectContaining(fixture.expect));
    });
  }

  it('reads a span OpenLLMetry gave both its own and the GenAI names once, by its own', () => {
    const view = readModelSpan({
      'llm.request.type': 'chat',
      'gen_ai.operation.name': 'chat',
      'gen_ai.usage.output_tokens': 70,
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.completion.0.content': 'hello',
    });
    expect(view).toEqual({ dialect: 'traceloop', outputTokens: 70, finishReason: 'stop', text: 'hello' });
    expect(readModelSpan({ 'llm.request.type': 'rerank', 'gen_ai.usage.completion_tokens': 3 })).toBeUndefined();
  });
});

describe('readModelSpan', () => {
  it('ignores tool spans, agent spans and spans with no LLM dialect', () => {
    expect(readModelSpan({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search' })).toBeUndefined();
    expect(readModelSpan({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.usage.output_tokens': 900 })).toBeUndefined();
    expect(readModelSpan({ 'ai.operationId': 'ai.toolCall', 'ai.toolCall.name': 'search' })).toBeUndefined();
    expect(readModelSpan({ 'http.request.method': 'POST' })).toBeUndefined();
  });

  it('reads no negative or non-numeric token count', () => {
    expect(readModelSpan({ 'gen_ai.operation.name': 'chat', 'gen_ai.usage.output_tokens': -3 })?.outputTokens).toBeUndefined();
    expect(readModelSpan({ 'gen_ai.operation.name': 'chat', 'gen_ai.usage.output_tokens': '12' })?.outputTokens).toBeUndefined();
    expect(readModelSpan({ 'gen_ai.operation.name': 'chat', 'gen_ai.usage.completion_tokens': 12 })?.outputTokens).toBe(12);
    expect(readModelSpan({ 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': -1 })?.inputTokens).toBeUndefined();
    expect(readModelSpan({ 'gen_ai.operation.name': 'chat', 'gen_ai.usage.prompt_tokens': 30 })?.inputTokens).toBe(30);
    expect(readModelSpan({ 'ai.operationId': 'ai.generateText.doGenerate', 'ai.usage.promptTokens': 30 })?.inputTokens).toBe(30);
  });
});
