import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCollector } from '../../../src/collector/index.js';
import type { RunningCollector, SpanAnnotator } from '../../../src/collector/index.js';
import { decodeTraceResponseJson } from '../../../src/collector/otlp-json.js';
import { decodeTraceResponseProto } from '../../../src/collector/otlp-protobuf.js';
import {
  hexId,
  jsonRequest,
  ld,
  nestedKvlistJson,
  nestedKvlistProto,
  protoAttribute,
  protoRequest,
  protoSpansRequest,
  spansOf,
  startUpstream,
  varint,
  waitFor,
} from './helpers.js';
import type { Upstream } from './helpers.js';

// What one sender gets accepted is forwardable, and what is not is refused in that sender's own request.

const annotator: SpanAnnotator = { onStart() {}, onEnd() {}, verdict: () => undefined };
let upstream: Upstream;
let collector: RunningCollector;
const DEPTH = 128;
const MAX_VALUES = 1000;

beforeAll(async () => {
  upstream = await startUpstream();
  collector = await startCollector(
    {
      listen: { host: '127.0.0.1', port: 0 },
      batch: { intervalMs: 50, maxSpans: 1000 },
      forward: { endpoint: upstream.url },
      limits: { maxAnyValueDepth: DEPTH, maxValuesPerSpan: MAX_VALUES },
    },
    { createAnnotator: () => annotator, log: () => {} },
  );
});
afterAll(async () => {
  await collector.close();
  await upstream.close();
});

const hex = (b: Uint8Array | undefined): string => Buffer.from(b ?? []).toString('hex');
const forwardedIds = (): Set<string> => new Set(spansOf(upstream.accepted).map((s) => hex(s.spanId)));

function post(body: string | Uint8Array, contentType: 'application/json' | 'application/x-protobuf'): Promise<Response> {
  return fetch(`${collector.url}/v1/traces`, { method: 'POST', body, headers: { 'content-type': contentType } });
}

/** A one-span OTLP/JSON request whose span carries the given attribute value (JSON text). */
function jsonSpanWithValue(valueJson: string): { body: string; spanId: string } {
  const spanId = hexId(8);
  const body = `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"${hexId(16)}","spanId":"${spanId}","name":"s","attributes":[{"key":"a","value":${valueJson}}]}]}]}]}`;
  return { body, spanId };
}

async function partialOf(res: Response): Promise<{ rejectedSpans?: string; errorMessage?: string } | undefined> {
  expect(res.status).toBe(200);
  return res.headers.get('content-type') === 'application/json'
    ? decodeTraceResponseJson(await res.text()).partialSuccess
    : decodeTraceResponseProto(new Uint8Array(await res.arrayBuffer())).partialSuccess;
}

describe('one sender cannot make another lose spans', () => {
  it('forwards 100 protobuf spans of A and the 40-deep kvlist span of B, sent together into one batch', async () => {
    const a = jsonRequest(100);
    const aIds = (a as any).resourceSpans[0].scopeSpans[0].spans.map((s: { spanId: string }) => s.spanId) as string[];
    const b = jsonSpanWithValue(nestedKvlistJson(40));
    const [resA, resB] = await Promise.all([post(protoRequest(a), 'application/x-protobuf'), post(b.body, 'application/json')]);
    expect(await partialOf(resA)).toBeUndefined();
    expect(await partialOf(resB)).toBeUndefined();
    await waitFor(() => [...aIds, b.spanId].every((id) => forwardedIds().has(id)), 10_000, 'A and B upstream');
  });

  it('refuses only B’s span when it nests deeper than limits.maxAnyValueDepth, in B’s own answer', async () => {
    const a = jsonRequest(100);
    const aIds = (a as any).resourceSpans[0].scopeSpans[0].spans.map((s: { spanId: string }) => s.spanId) as string[];
    const b = jsonSpanWithValue(nestedKvlistJson(DEPTH + 5));
    const [resA, resB] = await Promise.all([post(protoRequest(a), 'application/x-protobuf'), post(b.body, 'application/json')]);
    expect(await partialOf(resA)).toBeUndefined();
    const partial = await partialOf(resB);
    expect(partial?.rejectedSpans).toBe('1');
    expect(partial?.errorMessage).toMatch(/^1 span\(s\) rejected: resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]: attributes\[0\]\.value.*nested deeper than 128 levels$/);
    await waitFor(() => aIds.every((id) => forwardedIds().has(id)), 10_000, 'A upstream');
    expect(forwardedIds().has(b.spanId)).toBe(false);
  });
});

describe('AnyValue nesting (protobuf)', () => {
  it('accepts 32 and 128 levels and forwards them', async () => {
    for (const depth of [32, DEPTH - 1]) {
      const body = protoSpansRequest(protoAttribute('deep', nestedKvlistProto(depth)));
      expect(await partialOf(await post(body, 'application/x-protobuf'))).toBeUndefined();
    }
    await waitFor(() => spansOf(upstream.accepted).some((s) => s.attributes?.[0]?.key === 'deep'), 10_000, 'deep spans upstream');
  });

  it('beyond the limit (even 10,000 deep) refuses only the offending span, the rest of the request is accepted', async () => {
    const body = protoSpansRequest(protoAttribute('deep', nestedKvlistProto(10_000)), protoAttribute('flat', ld(1, Buffer.from('ok'))));
    const partial = await partialOf(await post(body, 'application/x-protobuf'));
    expect(partial?.rejectedSpans).toBe('1');
    expect(partial?.errorMessage).toMatch(/spans\[0\]: attributes\.value\..*nested deeper than 128 levels/);
    await waitFor(() => spansOf(upstream.accepted).some((s) => s.attributes?.[0]?.key === 'flat'), 10_000, 'the flat span upstream');
  });
});

describe('malformed values are refused, never wrapped, never a 500', () => {
  it('refuses a JSON kvlist 1,000 (and 100,000) deep as a partial success', async () => {
    for (const depth of [1000, 100_000]) {
      const partial = await partialOf(await post(jsonSpanWithValue(nestedKvlistJson(depth)).body, 'application/json'));
      expect(partial?.rejectedSpans).toBe('1');
    }
  });

  it('refuses intValue 1e21 and "99999999999999999999999" (out of int64 range), naming the field', async () => {
    for (const value of ['1e21', '"99999999999999999999999"', '-9223372036854775809']) {
      const { body, spanId } = jsonSpanWithValue(`{"intValue":${value}}`);
      const partial = await partialOf(await post(body, 'application/json'));
      expect(partial?.errorMessage).toMatch(/attributes\[0\]\.value\.intValue: expected an integer in the range of int64/);
      expect(forwardedIds().has(spanId)).toBe(false);
    }
    const { body } = jsonSpanWithValue('{"intValue":"9223372036854775807"}');
    expect(await partialOf(await post(body, 'application/json'))).toBeUndefined();
    await waitFor(() => spansOf(upstream.accepted).some((s) => s.attributes?.[0]?.value?.intValue === '9223372036854775807'), 10_000, 'int64 max upstream');
  });

  it('refuses a span field sent with the wrong wire type (partial), and a request-level one with 400', async () => {
    // Span.name (field 5, a string) sent as a varint.
    const spanLevel = protoSpansRequest(Buffer.concat([varint(5 * 8 + 0), varint(7)]));
    const partial = await partialOf(await post(spanLevel, 'application/x-protobuf'));
    expect(partial?.errorMessage).toMatch(/spans\[0\]: name: wrong wire type 0 \(expected 2\)/);
    // ExportTraceServiceRequest.resourceSpans (field 1, a message) sent as a varint.
    const requestLevel = Buffer.concat([varint(1 * 8 + 0), varint(7)]);
    const res = await post(requestLevel, 'application/x-protobuf');
    expect(res.status).toBe(400);
  });
});

describe('work per span is bounded (limits.maxValuesPerSpan)', () => {
  it('refuses a span with more attribute values than the limit, in either encoding, and keeps its neighbours', async () => {
    const many = Array.from({ length: MAX_VALUES + 1 }, (_, i) => protoAttribute(`k${i}`, ld(1, Buffer.from('v'))));
    const proto = protoSpansRequest(Buffer.concat(many), protoAttribute('few', ld(1, Buffer.from('v'))));
    const partial = await partialOf(await post(proto, 'application/x-protobuf'));
    expect(partial?.rejectedSpans).toBe('1');
    expect(partial?.errorMessage).toMatch(/spans\[0\]: .*more than 1000 attribute values in one span/);
    const attrs = Array.from({ length: MAX_VALUES + 1 }, (_, i) => `{"key":"k${i}","value":{"intValue":${i}}}`).join(',');
    const json = `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"${hexId(16)}","spanId":"${hexId(8)}","attributes":[${attrs}]},{"traceId":"${hexId(16)}","spanId":"${hexId(8)}"}]}]}]}`;
    const jsonPartial = await partialOf(await post(json, 'application/json'));
    expect(jsonPartial?.rejectedSpans).toBe('1');
    expect(jsonPartial?.errorMessage).toMatch(/more than 1000 attribute values in one span/);
  });
});
