/** An MCP client session over the in-memory transport, guarded by `register()` alone: each session is a run. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { LOOP_ORDER_ID, runApp, setUpApp } from './support.js';

const app = setUpApp('mcp');

/** Opens a session, makes the agent's calls through it, closes it. */
async function session(orderIds: string[]): Promise<void> {
  const server = new McpServer({ name: 'orders', version: '1.0.0' });
  server.registerTool('query_order', { description: 'Look an order up by id', inputSchema: { order_id: z.string() } }, async ({ order_id }) => ({
    content: [{ type: 'text', text: JSON.stringify({ order_id, status: order_id === 'A-1' ? 'shipped' : 'not_found' }) }],
  }));
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'support-agent', version: '1.0.0' });
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  try {
    for (const order_id of orderIds) await client.callTool({ name: 'query_order', arguments: { order_id } });
  } finally {
    await client.close();
    await server.close();
  }
}

await runApp(
  app,
  () => session(Array.from({ length: 20 }, () => LOOP_ORDER_ID)),
  () => session(['A-1', 'A-2', 'A-3']),
);
