import { SpanKind, SpanStatusCode, type Attributes } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { LoopEngine } from '../../src/engine.js';
import { resolveDetectionOptions, type DetectionOptions } from '../../src/options.js';
import * as sc from '../../src/semconv.js';
import type { SpanShape } from '../../src/span-shape.js';
import { TraceRuns } from '../../src/trace-runs.js';

function span(traceId: string, spanId: string, parent: string | undefined, attributes: Attributes = {}): SpanShape {
  return {
    name: 'span',
    kind: SpanKind.INTERNAL,
    attributes,
    status: { code: SpanStatusCode.UNSET },
    startTime: [0, 0],
    endTime: [0, 0],
    parentSpanContext: parent === undefined ? undefined : { traceId, spanId: parent, traceFlags: 1 },
    spanContext: () => ({ traceId, spanId, traceFlags: 1 }),
    setAttribute: () => undefined,
    addEvent: () => undefined,
  };
}

const runs = (options: DetectionOptions = {}) => new TraceRuns(new LoopEngine(resolveDetectionOptions(options)));

describe('TraceRuns', () => {
  it('keys a span by its trace, and a tool span that is its own root by nothing', () => {
    const r = runs();
    expect(r.runKeyOf(span('t1', 'a', 'root'))).toBe('t1');
    expect(r.runKeyOf(span('t1', 'root', undefined))).toBeUndefined();
  });

  it('keys every span of a trace by the conversation its root names', () => {
    const r = runs();
    r.start(span('t1', 'root', undefined, { [sc.ATTR_GEN_AI_CONVERSATION_ID]: 'c1' }));
    expect(r.runKeyOf(span('t1', 'a', 'root'))).toBe('c1');
    expect(r.ownRunKey(span('t1', 'b', 'root'), undefined)).toBe('c1');
    expect(r.toolSpanRunKey(span('t1', 'b', 'root'), undefined)).toBe('c1');
  });

  it('reads a custom run-key attribute before the conventional ones', () => {
    const r = runs({ runKeyAttribute: 'app.session' });
    const s = span('t1', 'a', 'root', { 'app.session': 's1', [sc.ATTR_GEN_AI_CONVERSATION_ID]: 'c1' });
    expect(r.runKeyOf(s)).toBe('s1');
    expect(r.toolSpanRunKey(s, 'c1')).toBe('s1');
    expect(r.ownRunKey(span('t1', 'b', 'root'), { 'app.session': 's2' })).toBe('s2');
  });

  it('hands out the run key once, when the root span closes, and forgets the trace', () => {
    const r = runs();
    const root = span('t1', 'root', undefined, { [sc.ATTR_GEN_AI_CONVERSATION_ID]: 'c1' });
    r.start(root);
    expect(r.closeRoot(span('t1', 'a', 'root'))).toBeUndefined();
    expect(r.closeRoot(root)).toBe('c1');
    expect(r.closeRoot(root)).toBeUndefined();
    expect(r.runKeyOf(span('t1', 'a', 'root'))).toBe('t1');
  });

  it('skips an LLM span that wraps one already counted', () => {
    const r = runs();
    r.start(span('t1', 'root', undefined));
    expect(r.wrapsCountedTurn(span('t1', 'inner', 'outer'))).toBe(false);
    expect(r.wrapsCountedTurn(span('t1', 'outer', 'root'))).toBe(true);
  });
});
