import type { ToolStep } from '../../../../src/eval/corpus.js';
import type { Attributes } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { attributesToKeyValues } from '../../../../src/collector/attributes.js';
import { OtlpSpanAdapter } from '../../../../src/collector/span-adapter.js';
import { spansToRuns } from '../../../../src/eval/formats/spans.js';

const ROOT = Buffer.from('00000000000000ff', 'hex');
let clock = 1_700_000_000_000;
let ids = 0;

/** A decoded OTLP span, 4 ms long, 10 ms after the previous one; a child of the trace's root unless `root`. */
function span(trace: string, attributes: Attributes, fields: { root?: boolean; error?: string; name?: string } = {}): OtlpSpanAdapter {
  clock += 10;
  const nanos = (ms: number) => (BigInt(ms) * 1_000_000n).toString();
  return new OtlpSpanAdapter({
    traceId: Buffer.from(trace.padStart(32, '0'), 'hex'),
    spanId: Buffer.from((++ids).toString(16).padStart(16, '0'), 'hex'),
    ...(fields.root ? {} : { parentSpanId: ROOT }),
    name: fields.name ?? 'tool',
    startTimeUnixNano: nanos(clock),
    endTimeUnixNano: nanos(clock + 4),
    attributes: attributesToKeyValues(attributes),
    ...(fields.error === undefined ? {} : { status: { code: 2, message: fields.error } }),
  });
}

const openInference = (trace: string, query: string, extra: Attributes = {}, root = false) =>
  span(trace, { 'openinference.span.kind': 'TOOL', 'tool.name': 'search', 'input.value': JSON.stringify({ q: query }), 'output.value': '[]', ...extra }, { root });

describe('spansToRuns: tool spans of a trace file as runs, by the dialect readers and the processor\'s run-key rule', () => {
  it('reads foreign dialects (OpenInference, Traceloop) and joins traces that share a session id', () => {
    const runs = spansToRuns(
      [
        openInference('a1', 'a', { 'session.id': 'sess-1' }),
        span('a1', { 'traceloop.span.kind': 'tool', 'traceloop.entity.name': 'fetch', 'traceloop.entity.input': '{"args":[],"kwargs":{"url":"u"}}', 'traceloop.entity.output': '{"ok":true}' }),
        span('a2', { 'session.id': 'sess-1' }, { root: true, name: 'invoke_agent' }),
        openInference('a2', 'a'),
      ],
      {},
    );
    expect(runs.map((r) => r.id)).toEqual(['sess-1']);
    expect((runs[0]!.steps as ToolStep[]).map((s) => [s.tool, s.args, s.status])).toEqual([
      ['search', { q: 'a' }, 'empty'],
      ['fetch', { url: 'u' }, 'ok'],
      ['search', { q: 'a' }, 'empty'],
    ]);
    expect(runs[0]!.steps[0]!.t).toBe(0);
    expect((runs[0]!.steps as ToolStep[]).every((s) => s.durationMs === 4)).toBe(true);
  });

  it('keys a run by its trace when no span names one, and leaves out a tool span alone in its trace', () => {
    const runs = spansToRuns([openInference('b1', 'a'), openInference('b2', 'b', {}, true)], {});
    expect(runs.map((r) => [r.id, r.steps.length])).toEqual([['b1'.padStart(32, '0'), 1]]);
  });

  it('reads the configured runKeyAttribute first', () => {
    const runs = spansToRuns([openInference('c1', 'a', { 'app.run': 'r-9', 'session.id': 's' })], { runKeyAttribute: 'app.run' });
    expect(runs[0]!.id).toBe('r-9');
  });

  it('a failed span is an error step naming the error type and the status message; a declared outcome wins over the result', () => {
    const runs = spansToRuns(
      [
        span('d1', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get', 'error.type': 'NotFound' }, { error: 'HTTP 404' }),
        span('d1', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'poll', 'gen_ai.tool.call.result': '{"state":"running"}', 'loopguard.outcome': 'pending' }),
      ],
      {},
    );
    expect((runs[0]!.steps as ToolStep[]).map((s) => [s.tool, s.status, s.error])).toEqual([
      ['get', 'error', 'NotFound: HTTP 404'],
      ['poll', 'pending', undefined],
    ]);
  });

  it("replays loopguard's own spans without captured content by their hashes, so equal calls stay equal", () => {
    const own = (args: string, result: string) =>
      span('e1', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get', 'loopguard.args.hash': args, 'loopguard.result.hash': result });
    const steps = spansToRuns([own('aa', 'r1'), own('aa', 'r1'), own('bb', 'r2')], {})[0]!.steps as ToolStep[];
    expect(steps.map((s) => [s.args, s.result])).toEqual([
      [{ 'loopguard.args.hash': 'aa' }, { 'loopguard.result.hash': 'r1' }],
      [{ 'loopguard.args.hash': 'aa' }, { 'loopguard.result.hash': 'r1' }],
      [{ 'loopguard.args.hash': 'bb' }, { 'loopguard.result.hash': 'r2' }],
    ]);
  });
});
