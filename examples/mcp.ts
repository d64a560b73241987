/**
 * MCP: a real MCP server and client over the SDK's in-memory transport, and
 * a stubborn scripted agent that keeps calling the server's `query_order`
 * tool. Blocked calls come back as `isError` results (MCP's in-band tool
 * errors); the break rejects `client.callTool`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { clip, conclude, setUp } from './support/example.js';

const example = await setUp('mcp', 'mcp');

const server = new McpServer({ name: 'orders', version: '1.0.0' });
server.registerTool('query_order', { description: 'Look an order up by id', inputSchema: { order_id: z.string() } }, async ({ order_id }) => {
  const text = JSON.stringify({ order_id, status: 'not_found' });
  example.executed(`query_order(${order_id})`, text);
  return { content: [{ type: 'text', text }] };
});
const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
const client = new Client({ name: 'support-agent', version: '1.0.0' });
await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);

const error = await example.guard
  .run('support-agent', async () => {
    for (let turn = 0; turn < 20; turn++) {
      const result = (await client.callTool({ name: 'query_order', arguments: { order_id: 'A-10492' } })) as { isError?: boolean; content: Array<{ text: string }> };
      if (result.isError) console.log(`           tool error   ${clip(result.content[0]?.text.split('\n')[0] ?? '', 70)}`);
    }
  })
  .then(() => undefined, (e: unknown) => e);
await client.close();
await server.close();
await conclude(example, error);
