import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Attributes } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { readToolSpan } from '../../../src/dialects/index.js';
import type { ToolSpanView } from '../../../src/dialects/index.js';

interface Fixture {
  source: string;
  span: { name: string; kind: number; attributes: Attributes };
  expect?: Partial<ToolSpanView> | null;
}

const dir = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const load = (file: string): Fixture[] => JSON.parse(readFileSync(join(dir, file), 'utf8')) as Fixture[];
const bySource = (fixtures: Fixture[], fragment: string): Fixture => {
  const found = fixtures.find((f) => f.source.includes(fragment));
  if (!found) throw new Error(`no fixture whose source mentions "${fragment}"`);
  return found;
};

describe('transcribed span shapes (expectations stored beside each shape)', () => {
  for (const file of ['genai-execute-tool.json', 'mcp-tools-call.json', 'traceloop-tool.json']) {
    for (const fixture of load(file)) {
      it(`${file}: ${fixture.source.slice(0, 110)}`, () => {
        const view = readToolSpan(fixture.span);
        if (fixture.expect === null) expect(view).toBeUndefined();
        else expect(view).toEqual(expect.objectContaining(fixture.expect));
        // No payload may be invented where the span recorded none.
        if (view && !view.hasArgs) expect(view.args).toBeUndefined();
        if (view && !view.hasResult) expect(view.result).toBeUndefined();
      });
    }
  }
});

describe('recorded from ai@6 built-in telemetry', () => {
  const fixtures = load('ai-sdk-v6.json');
  it('reads name, call id, parsed args and result, and the sessionId metadata as run key', () => {
    expect(readToolSpan(bySource(fixtures, 'full').span)).toEqual({
      dialect: 'ai-sdk', tool: 'search', callId: 'call-1',
      args: { query: 'weather in Paris' }, hasArgs: true,
      result: { hits: ['result for weather in Paris'] }, hasResult: true,
      runKey: 'sess-42',
    });
  });
  it('says args and result were not recorded under recordInputs/recordOutputs=false', () => {
    const view = readToolSpan(bySource(fixtures, 'recordInputs=false').span);
    expect(view).toMatchObject({ dialect: 'ai-sdk', tool: 'search', callId: 'call-1', hasArgs: false, hasResult: false });
    expect(view?.args).toBeUndefined();
    expect(view?.runKey).toBeUndefined();
  });
});

describe('recorded from ai@7 with @ai-sdk/otel', () => {
  const fixtures = load('ai-sdk-v7-otel.json');
  it('reads the GenAI execute_tool span of the OpenTelemetry integration', () => {
    expect(readToolSpan(bySource(fixtures, 'OpenTelemetry, defaults').span)).toEqual({
      dialect: 'genai', tool: 'search', callId: 'call-1',
      args: { query: 'weather in Paris' }, hasArgs: true,
      result: { hits: ['result for weather in Paris'] }, hasResult: true,
    });
  });
  it('degrades to name only when inputs and outputs are not recorded', () => {
    expect(readToolSpan(bySource(fixtures, 'OpenTelemetry, recordInputs=false').span)).toMatchObject({
      dialect: 'genai', tool: 'search', hasArgs: false, hasResult: false,
    });
  });
  it('reads the ai.toolCall span of LegacyOpenTelemetry', () => {
    expect(readToolSpan(bySource(fixtures, 'LegacyOpenTelemetry').span)).toMatchObject({
      dialect: 'ai-sdk', tool: 'search', callId: 'call-1', args: { query: 'weather in Paris' }, hasResult: true,
    });
  });
});

describe('recorded from the OpenInference LangChain.js instrumentation', () => {
  const fixtures = load('openinference-langchain.json');
  it('reads a one-field argument object, which the instrumentation records as its bare value', () => {
    expect(readToolSpan(bySource(fixtures, 'invoked with args').span)).toEqual({
      dialect: 'openinference', tool: 'search',
      args: 'weather in Paris', hasArgs: true,
      result: '3 results for weather in Paris', hasResult: true,
    });
  });
  it('unwraps the serialised ToolMessage of a tool-call invocation: content as result, its tool_call_id as call id, session.id as run key', () => {
    expect(readToolSpan(bySource(fixtures, 'ToolNode path').span)).toEqual({
      dialect: 'openinference', tool: 'lookup_order', callId: 'call_abc123',
      args: 'A-17', hasArgs: true,
      result: { id: 'A-17', status: 'shipped' }, hasResult: true,
      runKey: 'sess-42',
    });
  });
  it('parses JSON arguments and unwraps {"output": X}', () => {
    expect(readToolSpan(bySource(fixtures, 'two arguments').span)).toMatchObject({
      tool: 'grep', args: { pattern: 'TODO', path: 'src' }, result: ['src:3: TODO'], hasResult: true,
    });
  });
  it('has no result for a tool that threw', () => {
    expect(readToolSpan(bySource(fixtures, 'throws').span)).toMatchObject({ tool: 'read_file', hasArgs: true, hasResult: false });
  });
  it('gives the same view for the same call made twice with different tool call ids (only the call id differs)', () => {
    const span = bySource(fixtures, 'ToolNode path').span;
    const again = { ...span, attributes: { ...span.attributes, 'output.value': String(span.attributes['output.value']).replace('call_abc123', 'call_zzz999') } };
    const [a, b] = [readToolSpan(span), readToolSpan(again)];
    expect(b?.result).toEqual(a?.result);
    expect(b?.callId).toBe('call_zzz999');
  });
});

describe('recorded from the Traceloop MCP instrumentation', () => {
  const fixtures = load('traceloop-mcp.json');
  it('reads the client span of a tools/call: the MCP arguments unwrapped, the output as recorded', () => {
    expect(readToolSpan(bySource(fixtures, 'client span of tools/call query_order').span)).toEqual({
      dialect: 'traceloop', tool: 'query_order', callId: undefined,
      args: { order_id: 'A-10492' }, hasArgs: true,
      result: { result: '{"order_id":"A-10492","status":"not_found"}' }, hasResult: true,
    });
  });
  it('reads an in-band MCP error', () => {
    expect(readToolSpan(bySource(fixtures, 'read_file').span)).toMatchObject({ tool: 'read_file', args: { path: '/etc/shadow' }, result: { is_error: true } });
  });
  it('skips the server half of an MCP call (kind SERVER), which would count the call twice', () => {
    const client = bySource(fixtures, 'query_order').span;
    expect(readToolSpan({ ...client, kind: 1 })).toBeUndefined();
  });
});
