/**
 * Records the tool spans the real Traceloop MCP instrumentation
 * (@traceloop/instrumentation-mcp) emits for real MCP client and server
 * calls over the SDK's in-memory transport: the client span, the server
 * span of the same call, and an in-band error.
 * Run: npx tsx test/unit/dialects/record-traceloop-mcp-fixtures.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { McpInstrumentation } from '@traceloop/instrumentation-mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { z } from 'zod';

const here = dirname(fileURLToPath(import.meta.url));
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const instrumentation = new McpInstrumentation({ traceContent: true });
instrumentation.setTracerProvider(provider);
instrumentation.manuallyInstrument({ Client, Server });

const entry = createRequire(import.meta.url).resolve('@traceloop/instrumentation-mcp');
const version = (JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version: string }).version;

const server = new McpServer({ name: 'orders', version: '1.0.0' });
server.registerTool('query_order', { description: 'look an order up', inputSchema: { order_id: z.string() } }, async ({ order_id }) => ({
  content: [{ type: 'text', text: JSON.stringify({ order_id, status: 'not_found' }) }],
}));
server.registerTool('read_file', { description: 'read a file', inputSchema: { path: z.string() } }, async ({ path }) => ({
  content: [{ type: 'text', text: `EACCES: permission denied, open '${path}'` }],
  isError: true,
}));
const [a, b] = InMemoryTransport.createLinkedPair();
const client = new Client({ name: 'agent', version: '1.0.0' });
await Promise.all([server.connect(b), client.connect(a)]);
exporter.reset();
await client.callTool({ name: 'query_order', arguments: { order_id: 'A-10492' } });
await client.callTool({ name: 'read_file', arguments: { path: '/etc/shadow' } });
await client.close();
await server.close();

const out = exporter
  .getFinishedSpans()
  .filter((s) => s.attributes['traceloop.span.kind'] === 'tool')
  .map((span) => ({
    source: `@traceloop/instrumentation-mcp@${version} (traceContent on), ${span.kind === 2 ? 'client' : 'server'} span of tools/call ${String(span.attributes['traceloop.entity.name'])}`,
    recordedWith: 'test/unit/dialects/record-traceloop-mcp-fixtures.ts',
    span: { name: span.name, kind: span.kind, status: { ...span.status, message: span.status.message?.split('\n')[0] }, attributes: span.attributes },
  }));
writeFileSync(join(here, 'fixtures', 'traceloop-mcp.json'), `${JSON.stringify(out, null, 2)}\n`);
console.log(`recorded ${out.length} spans`);
