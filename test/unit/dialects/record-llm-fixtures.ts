/**
 * Records the LLM spans real instrumentations emit for one model response,
 * as fixtures for the model-span dialect tests: ai@6 built-in telemetry
 * (`ai.generateText.doGenerate`, `ai.streamText.doStream`), ai@7 with
 * `@ai-sdk/otel` (GenAI `chat` spans, and the legacy `ai.*` names), and the
 * OpenInference LangChain.js instrumentation (an LLM span for a chat model).
 * Each is recorded with the response cut off by the output limit and, where
 * the library has the switch, with outputs recorded and not.
 * Run: npx tsx test/unit/dialects/record-llm-fixtures.ts
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { recordedFixture, saveFixtures } from './fixture-file.js';
import * as ai6 from 'ai-v6';
import { MockLanguageModelV3, simulateReadableStream } from 'ai-v6/test';
import * as ai7 from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { LegacyOpenTelemetry, OpenTelemetry } from '@ai-sdk/otel';
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';

const here = dirname(fileURLToPath(import.meta.url));
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('fixture-recorder');
trace.setGlobalTracerProvider(provider);

const TEXT = 'The report so far: the first run scored 0.8 and the second';
const usage = {
  inputTokens: { total: 1200, noCache: 1200, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 4096, text: 4096, reasoning: undefined },
};
const cutOff = { content: [{ type: 'text' as const, text: TEXT }], finishReason: { unified: 'length' as const, raw: 'length' }, usage, warnings: [] };

const fixture = (source: string, span: ReadableSpan) => recordedFixture('test/unit/dialects/record-llm-fixtures.ts', source, span);

async function recordAi6() {
  const version = (await import('ai-v6/package.json', { with: { type: 'json' } })).default.version;
  const out: unknown[] = [];
  for (const [label, telemetry] of [
    ['full', { isEnabled: true, tracer, functionId: 'writer', metadata: { sessionId: 'sess-42' } }],
    ['recordOutputs=false', { isEnabled: true, tracer, recordOutputs: false }],
  ] as const) {
    exporter.reset();
    await ai6.generateText({ model: new MockLanguageModelV3({ doGenerate: async () => cutOff }), prompt: 'write the report', experimental_telemetry: telemetry });
    const streamed = ai6.streamText({
      model: new MockLanguageModelV3({
        doStream: async () => ({
          stream: simulateReadableStream({
            chunks: [
              { type: 'text-start' as const, id: 't1' },
              { type: 'text-delta' as const, id: 't1', delta: TEXT },
              { type: 'text-end' as const, id: 't1' },
              { type: 'finish' as const, finishReason: cutOff.finishReason, usage },
            ],
          }),
        }),
      }),
      prompt: 'write the report',
      experimental_telemetry: telemetry,
    });
    await streamed.consumeStream();
    await streamed.text;
    for (const span of exporter.getFinishedSpans()) out.push(fixture(`ai@${version} experimental_telemetry ${label}`, span));
  }
  saveFixtures('llm-ai-sdk-v6.json', out);
}

async function recordAi7() {
  const version = (await import('ai/package.json', { with: { type: 'json' } })).default.version;
  const otelVersion = (await import('@ai-sdk/otel/package.json', { with: { type: 'json' } })).default.version;
  const out: unknown[] = [];
  const cases = [
    ['OpenTelemetry, defaults', new OpenTelemetry({ tracer }), {}],
    ['OpenTelemetry, recordOutputs=false', new OpenTelemetry({ tracer }), { recordOutputs: false }],
    ['LegacyOpenTelemetry, defaults', new LegacyOpenTelemetry({ tracer }), {}],
  ] as const;
  for (const [label, integration, extra] of cases) {
    exporter.reset();
    await ai7.generateText({
      model: new MockLanguageModelV4({ doGenerate: (async () => cutOff) as never }),
      prompt: 'write the report',
      telemetry: { integrations: [integration], functionId: 'writer', ...extra },
    } as never);
    for (const span of exporter.getFinishedSpans()) out.push(fixture(`ai@${version} + @ai-sdk/otel@${otelVersion} ${label}`, span));
  }
  saveFixtures('llm-ai-sdk-v7-otel.json', out);
}

/** A chat model whose response is cut off, reporting usage and finish reason the way LangChain's provider packages do. */
class CutOffChatModel extends BaseChatModel {
  _llmType(): string {
    return 'cut-off';
  }
  async _generate(_messages: BaseMessage[]): Promise<ChatResult> {
    const message = new AIMessage({
      content: TEXT,
      response_metadata: { finish_reason: 'length' },
      usage_metadata: { input_tokens: 1200, output_tokens: 4096, total_tokens: 5296 },
    });
    return { generations: [{ text: TEXT, message, generationInfo: { finish_reason: 'length' } }] };
  }
}

async function recordOpenInference() {
  const instrumentation = new LangChainInstrumentation({ tracerProvider: provider });
  instrumentation.manuallyInstrument(CallbackManagerModule);
  const entry = createRequire(import.meta.url).resolve('@arizeai/openinference-instrumentation-langchain');
  const version = (JSON.parse(readFileSync(join(entry, '../../../package.json'), 'utf8')) as { version: string }).version;
  const coreVersion = (await import('@langchain/core/package.json', { with: { type: 'json' } })).default.version;
  exporter.reset();
  await new CutOffChatModel({}).invoke('write the report', { metadata: { session_id: 'sess-42' } });
  const out = exporter
    .getFinishedSpans()
    .map((span) => fixture(`@arizeai/openinference-instrumentation-langchain@${version} + @langchain/core@${coreVersion}: chat model invoked`, span));
  saveFixtures('llm-openinference-langchain.json', out);
}

await recordAi6();
await recordAi7();
await recordOpenInference();
console.log('recorded', join(here, 'fixtures'));
