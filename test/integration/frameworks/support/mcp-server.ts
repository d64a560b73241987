import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

/** A real MCP server with a `search` tool answering from `answers`, and a client linked to it in memory. */
export async function connectSearchServer(answers: (query: string) => string): Promise<{ client: Client; close: () => Promise<void> }> {
  const server = new McpServer({ name: 'search-server', version: '1.0.0' });
  server.registerTool(
    'search',
    { description: 'search the web', inputSchema: { query: z.string() } },
    async ({ query }) => ({ content: [{ type: 'text', text: answers(query) }] }),
  );
  server.registerTool('read_file', { description: 'read a file', inputSchema: { path: z.string() } }, async ({ path }) => ({
    content: [{ type: 'text', text: `EACCES: permission denied, open '${path}'` }],
    isError: true,
  }));
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  return { client, close: async () => { await client.close(); await server.close(); } };
}
