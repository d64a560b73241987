import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { encodeChunk } from '../../../src/collector/otlp-encode.js';
import type { SpanEdit } from '../../../src/collector/otlp-encode.js';
import type { OtlpEvent, OtlpKeyValue, OtlpSpan, OtlpTraceRequest } from '../../../src/collector/otlp-model.js';
import { decodeTraceRequestProto, decodeTraceRequestProtoPerSpan, encodeTraceRequestProto } from '../../../src/collector/otlp-protobuf.js';
import { EventType, KeyValueType } from '../../../src/collector/otlp-schema.js';
import { encodeMessage, writeEvent, writeKeyValue } from '../../../src/collector/otlp-value-writer.js';
import { ProtoWriter } from '../../../src/collector/proto-writer.js';

const LIMITS = { maxAnyValueDepth: 128, maxValuesPerSpan: 10_000 };

/** What the hand-written writer gives for one KeyValue / Event as field 9 / 11 of a message. */
function written(write: (w: ProtoWriter) => void): Buffer {
  const w = new ProtoWriter();
  write(w);
  return w.finish();
}

/** protobufjs's bytes for the same field. */
function reference(field: number, bytes: Uint8Array): Buffer {
  const writer = protobuf.Writer.create();
  writer.uint32(field * 8 + 2).bytes(bytes);
  return Buffer.from(writer.finish());
}

const kv = (key: string, value?: OtlpKeyValue['value']): OtlpKeyValue => (value === undefined ? { key } : { key, value });

const KEY_VALUES: OtlpKeyValue[] = [
  kv('loopguard.args.hash', { stringValue: 'db1649706f59d5ed' }),
  kv('empty string', { stringValue: '' }),
  kv('unicode', { stringValue: 'Grüße, 世界 🚀' }),
  kv('long', { stringValue: 'x'.repeat(300) }),
  kv('long unicode', { stringValue: 'é'.repeat(100) }),
  kv('lone surrogate, short', { stringValue: 'a\uD800b' }),
  kv('lone surrogate, long', { stringValue: `${'a'.repeat(50)}\uDC00` }),
  kv('\uD800 key', { stringValue: 'v' }),
  kv('true', { boolValue: true }),
  kv('false', { boolValue: false }),
  ...['0', '1', '127', '128', '2147483648', '4294967295', '4294967301', String(Number.MAX_SAFE_INTEGER)].map((n) => kv(`int ${n}`, { intValue: n })),
  kv('negative int', { intValue: '-5' }),
  kv('int beyond 2^53', { intValue: '9223372036854775807' }),
  kv('non-canonical int', { intValue: '007' }),
  ...[0, -0, 1.5, -2.25e-300, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_VALUE].map((d) => kv(`double ${d}`, { doubleValue: d })),
  kv('strings', { arrayValue: { values: [{ stringValue: 'a' }, {}, { stringValue: '' }] } }),
  kv('numbers', { arrayValue: { values: [{ intValue: '3' }, { doubleValue: 0.5 }, {}] } }),
  kv('empty array', { arrayValue: {} }),
  kv('empty values', { arrayValue: { values: [] } }),
  kv('nested array', { arrayValue: { values: [{ arrayValue: { values: [{ boolValue: true }] } }] } }),
  kv('map', { kvlistValue: { values: [kv('k', { stringValue: 'v' })] } }),
  kv('bytes', { bytesValue: Buffer.from([1, 2, 3]) }),
  kv('two members', { stringValue: 'a', intValue: '1' }),
  kv('no value'),
  kv('empty value', {}),
  kv('', { stringValue: 'empty key' }),
];

const EVENTS: OtlpEvent[] = [
  { name: 'loopguard.detection', timeUnixNano: '1700000000000250000', attributes: [kv('loopguard.detector', { stringValue: 'repeat' }), kv('loopguard.count', { intValue: '3' })] },
  { name: 'no attributes', timeUnixNano: '1' },
  { name: '', timeUnixNano: '0', attributes: [] },
  { timeUnixNano: '18446744073709551615' },
  { name: 'time beyond 64 bits', timeUnixNano: '18446744073709551616' },
  { name: 'dropped', droppedAttributesCount: 2 },
  { name: 'map attribute', attributes: [kv('m', { kvlistValue: {} })] },
  {},
];

describe('otlp-value-writer', () => {
  it.each(KEY_VALUES.map((v) => [v.key, v] as const))('writes the KeyValue %j as protobufjs does', (_name, value) => {
    expect(written((w) => writeKeyValue(w, 9, value))).toEqual(reference(9, encodeMessage(KeyValueType, value)));
  });

  it.each(EVENTS.map((e) => [JSON.stringify(e), e] as const))('writes the Event %s as protobufjs does', (_name, event) => {
    expect(written((w) => writeEvent(w, 11, event))).toEqual(reference(11, encodeMessage(EventType, event)));
  });
});

describe('ProtoWriter', () => {
  it('writes lengths and 64-bit varints minimally, at every size boundary, as protobufjs does', () => {
    for (const length of [0, 1, 127, 128, 16_383, 16_384, 2_097_151, 2_097_152]) {
      const payload = Buffer.alloc(length, 7);
      // Buffer.equals: a deep comparison of megabytes element by element would take the test's whole time budget.
      expect(written((w) => w.bytesField(3, payload)).equals(reference(3, payload))).toBe(true);
    }
    for (const [lo, hi] of [[0, 0], [0x7f, 0], [0x80, 0], [0xffffffff, 0], [0, 1], [0, 7], [0, 8], [0xffffffff, 0x7fffffff], [0xffffffff, 0xffffffff]] as const) {
      const ref = protobuf.Writer.create();
      ref.uint32(8).uint64(new protobuf.util.LongBits(lo, hi).toLong(true));
      expect(written((w) => w.varintField(1, lo, hi))).toEqual(Buffer.from(ref.finish()));
    }
  });

  it('takes back, with reset, what was recorded after a mark, sub-messages opened since included', () => {
    const w = new ProtoWriter();
    w.open(1);
    w.stringField(1, 'kept');
    const mark = w.mark();
    w.open(2);
    w.stringField(1, 'dropped');
    w.reset(mark);
    w.close();
    const ref = protobuf.Writer.create();
    ref.uint32(10).fork().uint32(10).string('kept').ldelim();
    expect(w.finish()).toEqual(Buffer.from(ref.finish()));
  });

  it('refuses to finish with a sub-message open, and is reusable once finished', () => {
    const w = new ProtoWriter();
    w.open(1);
    expect(() => w.finish()).toThrow(/left open/);
    w.clear();
    w.stringField(1, 'a');
    expect(w.finish()).toEqual(Buffer.from([10, 1, 97]));
    expect(w.finish()).toEqual(Buffer.alloc(0));
  });
});

/** A request as protobuf, decoded span by span as the receiver does, with `append` run on each span as detection would. */
async function receive(request: OtlpTraceRequest, append: (span: OtlpSpan, index: number) => SpanEdit) {
  const decoded = await decodeTraceRequestProtoPerSpan(encodeTraceRequestProto(request), LIMITS);
  const edits = new WeakMap<OtlpSpan, SpanEdit>();
  let index = 0;
  for (const rs of decoded.request.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) for (const span of ss.spans ?? []) edits.set(span, append(span, index++));
  return { decoded, edits };
}

const span = (n: number, attributes: OtlpKeyValue[] = []): OtlpSpan => ({
  traceId: Buffer.alloc(16, 1),
  spanId: Buffer.alloc(8, n + 1),
  name: `execute_tool t${n}`,
  startTimeUnixNano: '1700000000000000000',
  attributes,
});

describe('encodeChunk', () => {
  it('forwards received spans as their bytes plus the appended attributes and events, which protobuf reads as one span', async () => {
    const request: OtlpTraceRequest = {
      resourceSpans: [
        { resource: { attributes: [kv('service.name', { stringValue: 'a' })] }, scopeSpans: [{ scope: { name: 's' }, spans: [span(0, [kv('gen_ai.tool.name', { stringValue: 'search' })]), span(1)], schemaUrl: 'https://example.com/scope' }], schemaUrl: 'https://example.com/resource' },
        { scopeSpans: [{ spans: [span(2)] }] },
      ],
    };
    const { decoded, edits } = await receive(request, (s, i) => {
      const before = { attributes: s.attributes?.length ?? 0, events: s.events?.length ?? 0 };
      (s.attributes ??= []).push(kv('loopguard.step', { intValue: String(i + 1) }), kv('loopguard.input', { stringValue: 'full' }));
      if (i === 1) (s.events ??= []).push({ name: 'loopguard.detection', timeUnixNano: '1700000000000000001', attributes: [kv('loopguard.level', { stringValue: 'warn' })] });
      return before;
    });
    const refused = { rejectedSpans: 0, rejectionMessages: [] };
    const { body, spans } = encodeChunk(decoded.request.resourceSpans!, decoded.wire, edits, refused);
    expect(spans).toBe(3);
    expect(refused.rejectedSpans).toBe(0);
    // What the annotated model encodes to with protobufjs, read back: the same request.
    expect(decodeTraceRequestProto(body)).toEqual(decodeTraceRequestProto(encodeTraceRequestProto(decoded.request)));
  });

  it('refuses only a span that cannot be encoded, and leaves out a resource none of whose spans could be', async () => {
    const request: OtlpTraceRequest = {
      resourceSpans: [{ scopeSpans: [{ spans: [span(0), span(1)] }] }, { resource: { attributes: [kv('r', { stringValue: '2' })] }, scopeSpans: [{ spans: [span(2)] }] }],
    };
    const { decoded, edits } = await receive(request, (s, i) => {
      if (i === 0) return { attributes: 0, events: 0 };
      // A value protobufjs cannot encode, in place of a received attribute: the span is encoded whole, and fails.
      s.attributes = [{ key: 'bad', value: { arrayValue: 5 } as never }];
      return 'rewritten';
    });
    const refused = { rejectedSpans: 0, rejectionMessages: [] as string[] };
    const { body, spans } = encodeChunk(decoded.request.resourceSpans!, decoded.wire, edits, refused);
    expect(spans).toBe(1);
    expect(refused.rejectedSpans).toBe(2);
    expect(refused.rejectionMessages[0]).toMatch(/^span 0202020202020202: cannot be encoded for forwarding: .*object expected/);
    const forwarded = decodeTraceRequestProto(body);
    expect(forwarded.resourceSpans).toHaveLength(1);
    expect(forwarded.resourceSpans![0]!.scopeSpans![0]!.spans!.map((s) => Buffer.from(s.spanId!).toString('hex'))).toEqual(['0101010101010101']);
  });
});
