import { describe, expect, it } from 'vitest';
import { spansToRuns, type TraceSpan } from '../../../../src/eval/formats/spans.js';

let clock = 1_700_000_000_000;
function span(traceId: string, fields: Partial<TraceSpan> & { attributes: TraceSpan['attributes'] }): TraceSpan {
  clock += 10;
  return { traceId, spanId: `s${clock}`, parentSpanId: 'root', name: 'tool', kind: 0, startMs: clock, endMs: clock + 4, failed: false, statusMessage: undefined, ...fields };
}

const openInference = (trace: string, query: string, extra: TraceSpan['attributes'] = {}) =>
  span(trace, { attributes: { 'openinference.span.kind': 'TOOL', 'tool.name': 'search', 'input.value': JSON.stringify({ q: query }), 'output.value': '[]', ...extra } });

describe('spansToRuns: tool spans of a trace file as runs, by the dialect readers and the processor\'s run-key rule', () => {
  it('reads foreign dialects (OpenInference, Traceloop) and joins traces that share a session id', () => {
    const runs = spansToRuns(
      [
        openInference('t1', 'a', { 'session.id': 'sess-1' }),
        span('t1', { attributes: { 'traceloop.span.kind': 'tool', 'traceloop.entity.name': 'fetch', 'traceloop.entity.input': '{"args":[],"kwargs":{"url":"u"}}', 'traceloop.entity.output': '{"ok":true}' } }),
        span('t2', { name: 'invoke_agent', parentSpanId: undefined, attributes: { 'session.id': 'sess-1' } }),
        openInference('t2', 'a'),
      ],
      {},
    );
    expect(runs.map((r) => r.id)).toEqual(['sess-1']);
    expect(runs[0]!.steps.map((s) => [s.tool, s.args, s.status])).toEqual([
      ['search', { q: 'a' }, 'empty'],
      ['fetch', { url: 'u' }, 'ok'],
      ['search', { q: 'a' }, 'empty'],
    ]);
    expect(runs[0]!.steps[0]!.t).toBe(0);
    expect(runs[0]!.steps.every((s) => s.durationMs === 4)).toBe(true);
  });

  it('keys a run by its trace when no span names one, and leaves out a tool span alone in its trace', () => {
    const runs = spansToRuns([openInference('t1', 'a'), openInference('t2', 'b', {})].map((s, i) => (i === 1 ? { ...s, parentSpanId: undefined } : s)), {});
    expect(runs.map((r) => [r.id, r.steps.length])).toEqual([['t1', 1]]);
  });

  it('reads the configured runKeyAttribute first', () => {
    const runs = spansToRuns([openInference('t1', 'a', { 'app.run': 'r-9', 'session.id': 's' })], { runKeyAttribute: 'app.run' });
    expect(runs[0]!.id).toBe('r-9');
  });

  it('a failed span is an error step naming the error type and the status message; a declared outcome wins over the result', () => {
    const runs = spansToRuns(
      [
        span('t1', { failed: true, statusMessage: 'HTTP 404', attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get', 'error.type': 'NotFound' } }),
        span('t1', { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'poll', 'gen_ai.tool.call.result': '{"state":"running"}', 'loopguard.outcome': 'pending' } }),
      ],
      {},
    );
    expect(runs[0]!.steps.map((s) => [s.tool, s.status, s.error])).toEqual([
      ['get', 'error', 'NotFound: HTTP 404'],
      ['poll', 'pending', undefined],
    ]);
  });

  it("replays loopguard's own spans without captured content by their hashes, so equal calls stay equal", () => {
    const own = (args: string, result: string) =>
      span('t1', { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get', 'loopguard.args.hash': args, 'loopguard.result.hash': result } });
    const steps = spansToRuns([own('aa', 'r1'), own('aa', 'r1'), own('bb', 'r2')], {})[0]!.steps;
    expect(steps.map((s) => [s.args, s.result])).toEqual([
      [{ 'loopguard.args.hash': 'aa' }, { 'loopguard.result.hash': 'r1' }],
      [{ 'loopguard.args.hash': 'aa' }, { 'loopguard.result.hash': 'r1' }],
      [{ 'loopguard.args.hash': 'bb' }, { 'loopguard.result.hash': 'r2' }],
    ]);
  });
});
