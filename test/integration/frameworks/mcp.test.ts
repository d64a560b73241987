import { SpanKind } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../../instrumentation/index.js';
import { McpClientInstrumentation } from '../../../instrumentation/adapters/mcp/instrumentation.js';
import { LoopBreakError } from '../../../src/breaker.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { connectSearchServer } from './support/mcp-server.js';
import { exploringSearch, firstSteps, referenceSteps, repeatedSearch, type ScriptedCall } from './support/trajectory.js';

let instrumentation: McpClientInstrumentation;
let h: Harness;
let events: LoopEvent[];

function useGuard() {
  events = [];
  h = createHarness({ onLoop: (e) => void events.push(e) });
  instrumentation.setConfig({ guard: h.guard });
}

beforeAll(async () => {
  instrumentation = new McpClientInstrumentation({ guard: createHarness().guard });
  await instrumentation.ready;
});
afterAll(() => instrumentation.disable());

interface ToolResult {
  content: Array<{ type: string; text: string }>;
  isError?: boolean;
}

/** The agent's side: call each scripted tool over MCP until loopguard stops the run. */
async function drive(calls: ScriptedCall[]): Promise<{ results: ToolResult[]; error?: unknown }> {
  const answers = new Map(calls.map((c) => [String(c.args.query), c.result]));
  const { client, close } = await connectSearchServer((q) => answers.get(q) ?? 'nothing');
  const results: ToolResult[] = [];
  try {
    await h.guard.run('mcp-agent', async () => {
      for (const c of calls) results.push((await client.callTool({ name: c.tool, arguments: c.args })) as ToolResult);
    });
    return { results };
  } catch (error) {
    return { results, error };
  } finally {
    await close();
  }
}

describe('MCP client adapter', () => {
  it('guards Client.callTool: loopguard attributes plus the MCP method on the tool span', async () => {
    useGuard();
    await drive(exploringSearch(2));
    const spans = h.toolSpans();
    expect(spans).toHaveLength(2);
    // The GenAI MCP conventions' client span, judged by loopguard like any tool span.
    expect(spans[0]!.name).toBe('tools/call search');
    expect(spans[0]!.kind).toBe(SpanKind.CLIENT);
    expect(spans[0]!.attributes['mcp.method.name']).toBe('tools/call');
    expect(spans[0]!.attributes['loopguard.args.hash']).toMatch(/^[0-9a-f]{16}$/);
    expect(spans[1]!.attributes['loopguard.step']).toBe(2);
    // The JSON-RPC request id of each tools/call: distinct numbers, as the SDK sent them.
    const ids = spans.map((s) => s.attributes['jsonrpc.request.id']);
    expect(ids.every((id) => typeof id === 'string' && /^\d+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(2);
    await h.close();
  });

  it('detects the loop at the wrapTool steps; a block is an isError result, a break rejects callTool', async () => {
    const calls = repeatedSearch(12);
    const reference = await referenceSteps(calls);
    useGuard();
    const { results, error } = await drive(calls);
    expect(error).toBeInstanceOf(LoopBreakError);
    expect(firstSteps(events)).toEqual(reference);
    const blocked = results.filter((r) => r.isError === true);
    expect(blocked.length).toBe(reference.break! - reference.critical!);
    expect(blocked[0]!.content[0]!.text).not.toContain('Sunny');
    const nudged = results.filter((r) => !r.isError && r.content.length > 1);
    expect(nudged.length).toBeGreaterThan(0);
    expect(nudged[0]!.content[0]!.text).toBe('Sunny, 21°C');
    await h.close();
  });

  it("records the server's in-band isError as an error outcome", async () => {
    useGuard();
    const { client, close } = await connectSearchServer(() => '');
    await h.guard.run('mcp-err', () => client.callTool({ name: 'read_file', arguments: { path: '/etc/shadow' } }));
    await close();
    expect(h.toolSpans()[0]!.attributes['loopguard.outcome']).toBe('error');
    await h.close();
  });

  it('a normal multi-step run produces no verdict', async () => {
    useGuard();
    const { results, error } = await drive(exploringSearch(10));
    expect(error).toBeUndefined();
    expect(results).toHaveLength(10);
    expect(events).toEqual([]);
    await h.close();
  });
});
