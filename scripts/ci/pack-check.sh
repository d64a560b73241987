#!/usr/bin/env bash
# The published package as a new user meets it: `npm pack`, install the
# tarball into an empty ESM project, then run the README quick start and an
# MCP agent guarded by register() alone. Fails on any miss.
# Needs a built tree (npm run build) and the npm registry (or its cache).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

tarball="$(cd "$repo" && npm pack --silent --pack-destination "$work" | tail -1)"
tar -tzf "$work/$tarball" >"$work/files.txt"
for expected in package/docs/frameworks.md package/dist/instrumentation/index.js package/README.md; do
  grep -qx "$expected" "$work/files.txt" || { echo "missing from the tarball: $expected" >&2; exit 1; }
done
if grep -q '"sources":\["\.\./' <(tar -xzOf "$work/$tarball" package/dist/instrumentation/index.js.map) &&
  ! grep -q '"sourcesContent"' <(tar -xzOf "$work/$tarball" package/dist/instrumentation/index.js.map); then
  echo "source maps point at .ts files the package does not ship" >&2
  exit 1
fi

app="$work/app"
mkdir "$app"
cd "$app"
printf '{ "name": "loopguard-pack-check", "private": true, "type": "module" }\n' >package.json
mcp_version="$(node -p "require('$repo/package.json').devDependencies['@modelcontextprotocol/sdk']")"
zod_version="$(node -p "require('$repo/package.json').devDependencies.zod")"
api_version="$(node -p "require('$repo/package.json').devDependencies['@opentelemetry/api']")"
npm install --silent --no-audit --no-fund --prefer-offline "$work/$tarball" "@opentelemetry/api@$api_version" \
  "@modelcontextprotocol/sdk@$mcp_version" "zod@$zod_version"

# The README quick start, with two real tools.
cat >quickstart.mjs <<'JS'
import { register, LoopBreakError } from 'loopguard';

const guard = register({ serviceName: 'support-agent', exporter: 'none', onLoop: (e) => console.warn(e.level, e.detector) });
const tools = guard.wrapTools({ search: async (q) => `nothing about ${q}`, readFile: async (path) => `contents of ${path}` });
let stopped = false;
try {
  await guard.run('answer-ticket', async () => {
    for (let i = 0; i < 20; i++) await tools.search('refund policy');
  });
} catch (err) {
  if (err instanceof LoopBreakError) stopped = true;
}
await guard.shutdown();
if (!stopped) throw new Error('quick start: the looping agent was not stopped');
console.log('quick start: stopped');
JS
node quickstart.mjs

# An MCP agent guarded by register() alone: no guard.run, no await.
cat >mcp.mjs <<'JS'
import { isLoopBreak, register } from 'loopguard';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

const levels = [];
register({ serviceName: 'mcp-agent', exporter: 'none', onLoop: (e) => void levels.push(e.level) });
const server = new McpServer({ name: 'orders', version: '1.0.0' });
server.registerTool('query_order', { description: 'Look an order up', inputSchema: { order_id: z.string() } }, async ({ order_id }) => ({
  content: [{ type: 'text', text: JSON.stringify({ order_id, status: 'not_found' }) }],
}));
const [a, b] = InMemoryTransport.createLinkedPair();
const client = new Client({ name: 'agent', version: '1.0.0' });
await Promise.all([server.connect(b), client.connect(a)]);
let stopped = false;
try {
  for (let i = 0; i < 20; i++) await client.callTool({ name: 'query_order', arguments: { order_id: 'A-1' } });
} catch (err) {
  stopped = isLoopBreak(err);
}
await client.close();
await server.close();
if (!stopped || !levels.includes('warning') || !levels.includes('critical')) throw new Error(`mcp: not nudged, blocked and stopped (${levels})`);
console.log(`mcp: ${levels.join(', ')}`);
JS
node mcp.mjs
echo "pack check: ok ($tarball)"
