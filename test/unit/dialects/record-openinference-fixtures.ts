/**
 * Records the TOOL spans the real OpenInference LangChain.js instrumentation
 * emits for real @langchain/core tools: called with plain args, and called
 * with a tool call (as LangGraph's ToolNode does), plus a session id set the
 * way its docs say (run metadata `session_id`).
 * Run: npx tsx test/unit/dialects/record-openinference-fixtures.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { tool, DynamicTool } from '@langchain/core/tools';
import { z } from 'zod';

const here = dirname(fileURLToPath(import.meta.url));
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
trace.setGlobalTracerProvider(provider);
const instrumentation = new LangChainInstrumentation({ tracerProvider: provider });
instrumentation.manuallyInstrument(CallbackManagerModule);

const search = tool(async ({ query }) => `3 results for ${query}`, {
  name: 'search',
  description: 'search the web',
  schema: z.object({ query: z.string() }),
});
const lookup = tool(async ({ id }) => ({ id, status: 'shipped' }), {
  name: 'lookup_order',
  description: 'look an order up',
  schema: z.object({ id: z.string() }),
});
const grep = tool(async ({ pattern, path }) => [`${path}:3: ${pattern}`], {
  name: 'grep', description: 'search files', schema: z.object({ pattern: z.string(), path: z.string() }),
});
const echo = new DynamicTool({ name: 'echo', description: 'echo text', func: async (input: string) => `echo: ${input}` });
const failing = tool(async () => { throw new Error('permission denied'); }, {
  name: 'read_file', description: 'read a file', schema: z.object({ path: z.string() }),
});

// The package does not export its package.json: find it beside the resolved entry point.
const entry = createRequire(import.meta.url).resolve('@arizeai/openinference-instrumentation-langchain');
const version = (JSON.parse(readFileSync(join(entry, '../../../package.json'), 'utf8')) as { version: string }).version;
const coreVersion = (await import('@langchain/core/package.json', { with: { type: 'json' } })).default.version;
const out: unknown[] = [];
async function record(label: string, run: () => Promise<unknown>) {
  exporter.reset();
  await run().catch(() => undefined);
  for (const span of exporter.getFinishedSpans()) {
    out.push({
      source: `@arizeai/openinference-instrumentation-langchain@${version} + @langchain/core@${coreVersion}: ${label}`,
      recordedWith: 'test/unit/dialects/record-openinference-fixtures.ts',
      // Only the message line of an error status: the stack names this machine's paths.
      span: { name: span.name, kind: span.kind, status: { ...span.status, message: span.status.message?.split('\n')[0] }, attributes: span.attributes },
    });
  }
}

await record('structured tool invoked with args', () => search.invoke({ query: 'weather in Paris' }));
await record('structured tool invoked with a tool call (ToolNode path), session_id in run metadata', () =>
  lookup.invoke({ type: 'tool_call', id: 'call_abc123', name: 'lookup_order', args: { id: 'A-17' } }, { metadata: { session_id: 'sess-42' } }));
await record('structured tool with two arguments', () => grep.invoke({ pattern: 'TODO', path: 'src' }));
await record('DynamicTool invoked with a string', () => echo.invoke('hello'));
await record('tool that throws', () => failing.invoke({ path: '/etc/shadow' }));

writeFileSync(join(here, 'fixtures', 'openinference-langchain.json'), `${JSON.stringify(out, null, 2)}\n`);
console.log(`recorded ${out.length} spans`);
