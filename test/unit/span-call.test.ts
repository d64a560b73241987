import { SpanKind, SpanStatusCode, type Attributes, type SpanStatus } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import type { ToolSpanView } from '../../src/dialects/index.js';
import { fingerprintArgs } from '../../src/fingerprint/index.js';
import * as sc from '../../src/semconv.js';
import { callEndOf, callFactsOf, inputSeen, NAME_ONLY_ARGS, unrecordedResult } from '../../src/span-call.js';
import type { SpanShape } from '../../src/span-shape.js';

function span(attributes: Attributes, status: SpanStatus = { code: SpanStatusCode.UNSET }, spanId = 'span-1'): SpanShape & { attributes: Attributes } {
  return {
    name: 'execute_tool search',
    kind: SpanKind.INTERNAL,
    attributes,
    status,
    startTime: [1, 500_000_000],
    endTime: [0, 0],
    spanContext: () => ({ traceId: 't', spanId, traceFlags: 1 }),
    setAttribute(key, value) {
      attributes[key] = value;
    },
    addEvent: () => undefined,
  };
}

const view = (over: Partial<ToolSpanView> = {}): ToolSpanView => ({ dialect: 'genai', tool: 'search', hasArgs: false, hasResult: false, ...over });

describe('callEndOf', () => {
  it('takes a result hashed by the span maker before the span status', () => {
    const s = span({ [sc.ATTR_LOOPGUARD_RESULT_HASH]: 'r1', [sc.ATTR_LOOPGUARD_FAILURE]: 'transient' }, { code: SpanStatusCode.ERROR, message: 'boom' });
    expect(callEndOf(s, view({ hasResult: true, result: 'x' }))).toEqual({
      kind: 'hashed',
      resultHash: 'r1',
      outcome: 'error',
      resultSketch: undefined,
      pageState: undefined,
      failure: 'transient',
    });
  });

  it('ignores a failure kind it does not know', () => {
    const end = callEndOf(span({ [sc.ATTR_LOOPGUARD_RESULT_HASH]: 'r1', [sc.ATTR_LOOPGUARD_FAILURE]: 'sometimes' }), view());
    expect(end).toMatchObject({ kind: 'hashed', outcome: 'ok', failure: undefined });
  });

  it('reads a failed call from its status and error attributes', () => {
    const s = span({ [sc.ATTR_ERROR_TYPE]: 'TimeoutError', [sc.ATTR_LOOPGUARD_ERROR_RETRYABLE]: true }, { code: SpanStatusCode.ERROR, message: 'timed out' });
    expect(callEndOf(s, view({ hasResult: true, result: 'x' }))).toEqual({ kind: 'failed', errorType: 'TimeoutError', message: 'timed out', retryable: true });
  });

  it('hands over a recorded result with the outcome the tool declared', () => {
    expect(callEndOf(span({ [sc.ATTR_LOOPGUARD_OUTCOME]: 'empty' }), view({ hasResult: true, result: [] }))).toEqual({ kind: 'returned', result: [], outcome: 'empty' });
  });

  it('gives a call whose result nobody recorded a hash of its own span', () => {
    expect(callEndOf(span({}, undefined, 'a'), view())).toEqual({ kind: 'hashed', resultHash: unrecordedResult('a'), outcome: 'ok' });
    expect(unrecordedResult('a')).not.toBe(unrecordedResult('b'));
  });
});

describe('callFactsOf', () => {
  it('reuses the hashes the span maker wrote, without serialising the arguments again', () => {
    const s = span({ [sc.ATTR_LOOPGUARD_ARGS_HASH]: 'a1', [sc.ATTR_LOOPGUARD_ARGS_WORDS]: 'w', [sc.ATTR_LOOPGUARD_ACTION]: 'block' });
    const facts = callFactsOf(s, view({ dialect: 'loopguard', hasArgs: true, args: { q: 1 } }), undefined);
    expect(facts).toMatchObject({ argsHash: 'a1', normArgsHash: 'a1', argsWords: 'w', argsText: undefined, blocked: true, startMs: 1500, endMs: undefined });
    expect(Object.keys(s.attributes).sort()).toEqual([sc.ATTR_LOOPGUARD_ACTION, sc.ATTR_LOOPGUARD_ARGS_HASH, sc.ATTR_LOOPGUARD_ARGS_WORDS].sort());
  });

  it('fingerprints recorded arguments and writes the hash and what was seen onto the span', () => {
    const s = span({});
    const facts = callFactsOf(s, view({ hasArgs: true, args: { q: 'x' } }), undefined);
    const fp = fingerprintArgs({ q: 'x' }, undefined);
    expect(facts).toMatchObject({ argsHash: fp.argsHash, argsText: fp.argsText, hasArgs: true, blocked: false });
    expect(s.attributes[sc.ATTR_LOOPGUARD_ARGS_HASH]).toBe(fp.argsHash);
    expect(s.attributes[sc.ATTR_LOOPGUARD_INPUT]).toBe('args');
  });

  it('knows a call without recorded arguments by its tool name alone', () => {
    const s = span({});
    expect(callFactsOf(s, view({ hasResult: true }), undefined)).toMatchObject({ argsHash: NAME_ONLY_ARGS, normArgsHash: NAME_ONLY_ARGS, args: undefined });
    expect(s.attributes[sc.ATTR_LOOPGUARD_INPUT]).toBe('result');
  });
});

describe('inputSeen', () => {
  it('names what was seen of the call', () => {
    expect([inputSeen(true, true), inputSeen(true, false), inputSeen(false, true), inputSeen(false, false)]).toEqual(['full', 'args', 'result', 'name_only']);
  });
});
