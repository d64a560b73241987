/**
 * Records the tool spans the real AI SDK packages emit, as fixtures for the
 * dialect unit tests: ai@6 built-in telemetry (`ai.toolCall`) and ai@7 with
 * `@ai-sdk/otel` (`execute_tool`, and `ai.toolCall` via LegacyOpenTelemetry).
 * Run: npx tsx test/unit/dialects/record-ai-sdk-fixtures.ts
 * (the fixture files are committed; this script is how they were made).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { recordedFixture, saveFixtures } from './fixture-file.js';
import { z } from 'zod';
import * as ai6 from 'ai-v6';
import { MockLanguageModelV3 } from 'ai-v6/test';
import * as ai7 from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { LegacyOpenTelemetry, OpenTelemetry } from '@ai-sdk/otel';

const here = dirname(fileURLToPath(import.meta.url));
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('fixture-recorder');
trace.setGlobalTracerProvider(provider);

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};
function scripted() {
  let step = 0;
  return async () => {
    step += 1;
    if (step === 1) {
      return {
        content: [{ type: 'tool-call' as const, toolCallId: 'call-1', toolName: 'search', input: '{"query":"weather in Paris"}' }],
        finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
        usage,
        warnings: [],
      };
    }
    return { content: [{ type: 'text' as const, text: 'done' }], finishReason: { unified: 'stop' as const, raw: 'stop' }, usage, warnings: [] };
  };
}

function toolSpans(): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((s) => s.name === 'ai.toolCall' || s.name.startsWith('execute_tool'));
}

const fixture = (source: string, span: ReadableSpan) => recordedFixture('test/unit/dialects/record-ai-sdk-fixtures.ts', source, span);

const searchTool6 = ai6.tool({
  description: 'search the web',
  inputSchema: z.object({ query: z.string() }),
  execute: async ({ query }) => ({ hits: [`result for ${query}`] }),
});

async function recordAi6() {
  const out: unknown[] = [];
  for (const [label, telemetry] of [
    ['full', { isEnabled: true, tracer, functionId: 'support-agent', metadata: { sessionId: 'sess-42' } }],
    ['recordInputs=false, recordOutputs=false', { isEnabled: true, tracer, recordInputs: false, recordOutputs: false }],
  ] as const) {
    exporter.reset();
    await ai6.generateText({
      model: new MockLanguageModelV3({ doGenerate: scripted() }),
      tools: { search: searchTool6 },
      stopWhen: ai6.stepCountIs(3),
      prompt: 'weather?',
      experimental_telemetry: telemetry,
    });
    for (const span of toolSpans()) out.push(fixture(`ai@${(await import('ai-v6/package.json', { with: { type: 'json' } })).default.version} experimental_telemetry ${label}`, span));
  }
  saveFixtures('ai-sdk-v6.json', out);
}

async function recordAi7() {
  const version = (await import('ai/package.json', { with: { type: 'json' } })).default.version;
  const otelVersion = (await import('@ai-sdk/otel/package.json', { with: { type: 'json' } })).default.version;
  const searchTool7 = ai7.tool({
    description: 'search the web',
    inputSchema: z.object({ query: z.string() }),
    execute: async ({ query }: { query: string }) => ({ hits: [`result for ${query}`] }),
  });
  const out: unknown[] = [];
  const cases = [
    ['OpenTelemetry, defaults', new OpenTelemetry({ tracer }), {}],
    ['OpenTelemetry, recordInputs=false recordOutputs=false', new OpenTelemetry({ tracer }), { recordInputs: false, recordOutputs: false }],
    ['LegacyOpenTelemetry, defaults', new LegacyOpenTelemetry({ tracer }), {}],
  ] as const;
  for (const [label, integration, extra] of cases) {
    exporter.reset();
    await ai7.generateText({
      model: new MockLanguageModelV4({ doGenerate: scripted() as never }),
      tools: { search: searchTool7 },
      stopWhen: ai7.isStepCount(3),
      prompt: 'weather?',
      telemetry: { integrations: [integration], functionId: 'support-agent', ...extra },
    } as never);
    for (const span of toolSpans()) out.push(fixture(`ai@${version} + @ai-sdk/otel@${otelVersion} ${label}`, span));
  }
  saveFixtures('ai-sdk-v7-otel.json', out);
}

await recordAi6();
await recordAi7();
console.log('recorded', join(here, 'fixtures'));
