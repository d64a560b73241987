import { describe, expect, it } from 'vitest';
import { readRunKey, readToolSpan } from '../../../src/dialects/index.js';
import { MAX_PARSED_PAYLOAD_CHARS, parsePayload } from '../../../src/dialects/payload.js';
import { unwrapEntityInput } from '../../../src/dialects/traceloop.js';

const INTERNAL = 0;
const CLIENT = 2;

describe('readToolSpan', () => {
  it('ignores spans that are not tool calls', () => {
    expect(readToolSpan({ name: 'chat gpt-4o', kind: CLIENT, attributes: { 'gen_ai.operation.name': 'chat' } })).toBeUndefined();
    expect(readToolSpan({ name: 'GET /', kind: 1, attributes: { 'http.request.method': 'GET' } })).toBeUndefined();
    expect(readToolSpan({ name: 'agent', kind: INTERNAL, attributes: { 'openinference.span.kind': 'AGENT' } })).toBeUndefined();
  });

  it('recognises its own spans by loopguard.args.hash and hands back no payload', () => {
    const view = readToolSpan({
      name: 'execute_tool search',
      kind: INTERNAL,
      attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search', 'loopguard.args.hash': '0123456789abcdef', 'gen_ai.tool.call.arguments': '{"q":1}' },
    });
    expect(view).toEqual({ dialect: 'loopguard', tool: 'search', callId: undefined, hasArgs: true, hasResult: false });
  });

  it('takes the tool name from the span name when the attribute is missing', () => {
    expect(readToolSpan({ name: 'execute_tool fetch_page', kind: INTERNAL, attributes: { 'gen_ai.operation.name': 'execute_tool' } })?.tool).toBe('fetch_page');
    expect(readToolSpan({ name: 'tools/call list_dir', kind: CLIENT, attributes: { 'mcp.method.name': 'tools/call' } })?.tool).toBe('list_dir');
    expect(readToolSpan({ name: 'grep.tool', kind: INTERNAL, attributes: { 'traceloop.span.kind': 'tool' } })?.tool).toBe('grep');
  });

  it('skips a span that names no tool anywhere instead of inventing one', () => {
    expect(readToolSpan({ name: 'execute_tool', kind: INTERNAL, attributes: { 'gen_ai.operation.name': 'execute_tool' } })).toBeUndefined();
  });

  it('prefers the AI SDK payloads on a span that OpenInference or OpenLLMetry also annotated', () => {
    const view = readToolSpan({
      name: 'ai.toolCall',
      kind: INTERNAL,
      attributes: {
        'ai.toolCall.name': 'search', 'ai.toolCall.id': 'c1', 'ai.toolCall.args': '{"q":"a"}', 'ai.toolCall.result': '"r"',
        'openinference.span.kind': 'TOOL', 'tool.name': 'search', 'input.value': 'something else',
        'gen_ai.operation.name': 'execute_tool',
      },
    });
    expect(view).toMatchObject({ dialect: 'ai-sdk', args: { q: 'a' }, result: 'r' });
  });

  it('falls back to the GenAI payload names on an ai.toolCall span OpenLLMetry already transformed', () => {
    const view = readToolSpan({
      name: 'ai.toolCall',
      kind: INTERNAL,
      attributes: { 'ai.toolCall.name': 'search', 'gen_ai.tool.call.arguments': '{"q":"a"}', 'gen_ai.tool.call.result': '[]' },
    });
    expect(view).toMatchObject({ dialect: 'ai-sdk', args: { q: 'a' }, hasArgs: true, result: [], hasResult: true });
  });

  it('never throws on hostile attribute values', () => {
    const attributes = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'x', 'gen_ai.tool.call.arguments': '{"a":' } as const;
    expect(readToolSpan({ name: 'execute_tool x', kind: INTERNAL, attributes })).toMatchObject({ args: '{"a":', hasArgs: true });
    const weird = { name: 'n', kind: INTERNAL, get attributes(): never { throw new Error('boom'); } };
    expect(readToolSpan(weird)).toBeUndefined();
  });

  it('treats a recorded empty string as recorded', () => {
    expect(readToolSpan({ name: 'ai.toolCall', kind: INTERNAL, attributes: { 'ai.toolCall.name': 't', 'ai.toolCall.result': '' } })).toMatchObject({ hasResult: true, result: '' });
  });
});

describe('parsePayload', () => {
  it('parses JSON text and keeps other text as it is', () => {
    expect(parsePayload('{"a":[1,2]}')).toEqual({ a: [1, 2] });
    expect(parsePayload('"quoted"')).toBe('quoted');
    expect(parsePayload('42')).toBe(42);
    expect(parsePayload('null')).toBeNull();
    expect(parsePayload('hello world')).toBe('hello world');
    expect(parsePayload('{broken')).toBe('{broken');
    expect(parsePayload(7)).toBe(7);
    expect(parsePayload(['a', 'b'])).toEqual(['a', 'b']);
  });
  it('keeps oversized payloads as text rather than parsing them', () => {
    const huge = `[${'1,'.repeat(MAX_PARSED_PAYLOAD_CHARS / 2)}1]`;
    expect(parsePayload(huge)).toBe(huge);
  });
});

describe('unwrapEntityInput (Traceloop decorator wrapper)', () => {
  it('returns what the tool was called with', () => {
    expect(unwrapEntityInput({ args: [], kwargs: { q: 1 } })).toEqual({ q: 1 });
    expect(unwrapEntityInput({ args: ['x'], kwargs: {} })).toBe('x');
    expect(unwrapEntityInput({ args: [1, 2], kwargs: {} })).toEqual([1, 2]);
    expect(unwrapEntityInput({ args: [], kwargs: {} })).toEqual({});
  });
  it("returns the arguments of the MCP instrumentation's {tool_name, arguments}", () => {
    expect(unwrapEntityInput({ tool_name: 'q', arguments: { id: 1 } })).toEqual({ id: 1 });
    expect(unwrapEntityInput({ tool_name: 'q' })).toEqual({});
  });
  it('keeps anything that is not exactly the wrapper', () => {
    expect(unwrapEntityInput({ args: [1], kwargs: { a: 1 } })).toEqual({ args: [1], kwargs: { a: 1 } });
    expect(unwrapEntityInput({ args: [], kwargs: {}, extra: 1 })).toEqual({ args: [], kwargs: {}, extra: 1 });
    expect(unwrapEntityInput('plain')).toBe('plain');
  });
});

describe('readRunKey', () => {
  it('prefers gen_ai.conversation.id, then OpenInference session.id', () => {
    expect(readRunKey({ 'session.id': 's', 'gen_ai.conversation.id': 'c' })).toBe('c');
    expect(readRunKey({ 'session.id': 's', 'ai.telemetry.metadata.sessionId': 'a' })).toBe('s');
  });
  it('reads Traceloop association properties and AI SDK telemetry metadata', () => {
    expect(readRunKey({ 'traceloop.association.properties.session_id': 't' })).toBe('t');
    expect(readRunKey({ 'traceloop.association.properties.conversation_id': 'tc' })).toBe('tc');
    expect(readRunKey({ 'ai.telemetry.metadata.sessionId': 'a' })).toBe('a');
    expect(readRunKey({ 'ai.telemetry.metadata.threadId': 'th' })).toBe('th');
  });
  it('turns numeric ids into strings and ignores empty ones', () => {
    expect(readRunKey({ 'gen_ai.conversation.id': 12 })).toBe('12');
    expect(readRunKey({ 'gen_ai.conversation.id': '', 'session.id': 's' })).toBe('s');
  });
  it('does not treat an MCP transport session as a run', () => {
    expect(readRunKey({ 'mcp.session.id': '8267461134f24305af708e66b8eda71a' })).toBeUndefined();
  });
});
