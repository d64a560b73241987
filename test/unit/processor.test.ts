import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { LoopGuardSpanProcessor } from '../../src/processor.js';
import type { SpanShape } from '../../src/span-shape.js';

/** A span whose context cannot be read: what a broken foreign span could do to a processor. */
const broken: SpanShape = {
  name: 'execute_tool x',
  kind: SpanKind.INTERNAL,
  attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'x' },
  status: { code: SpanStatusCode.UNSET },
  startTime: [0, 0],
  endTime: [0, 0],
  spanContext() {
    throw new Error('no context');
  },
  setAttribute: () => undefined,
  addEvent: () => undefined,
};

describe('LoopGuardSpanProcessor', () => {
  it('never throws into the tracer and reports what it caught', () => {
    const caught: unknown[] = [];
    const processor = new LoopGuardSpanProcessor({ onInternalError: (e) => caught.push(e) });
    expect(() => processor.onStart(broken)).not.toThrow();
    expect(() => processor.onEnding(broken)).not.toThrow();
    expect(caught.length).toBeGreaterThanOrEqual(2);
    expect((caught[0] as Error).message).toBe('no context');
  });

  it('survives an error hook that throws', () => {
    const processor = new LoopGuardSpanProcessor({
      onInternalError: () => {
        throw new Error('hook bug');
      },
    });
    expect(() => processor.onStart(broken)).not.toThrow();
  });
});
