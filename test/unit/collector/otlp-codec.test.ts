import { readFileSync } from 'node:fs';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import {
  decodeRpcStatusJson,
  decodeTraceRequestJson,
  encodeRpcStatusJson,
  encodeTraceRequestJson,
  encodeTraceResponseJson,
} from '../../../src/collector/otlp-json.js';
import { OtlpDecodeError } from '../../../src/collector/otlp-model.js';
import type { OtlpTraceRequest } from '../../../src/collector/otlp-model.js';
import {
  decodeRpcStatusProto,
  decodeTraceRequestProto,
  decodeTraceRequestProtoPerSpan,
  encodeRpcStatusProto,
  encodeTraceRequestProto,
  encodeTraceResponseProto,
} from '../../../src/collector/otlp-protobuf.js';

/** examples/trace.json of the opentelemetry-proto repository, verbatim. */
const SPEC_EXAMPLE = readFileSync(new URL('./fixtures/otlp-spec-trace.json', import.meta.url), 'utf8');

const hex = (b: Uint8Array | undefined): string => Buffer.from(b ?? []).toString('hex');

/** The same example with every key in its original proto (snake_case) spelling. */
function toSnakeCase(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toSnakeCase);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), toSnakeCase(v)]),
    );
  }
  return value;
}

async function sdkSpans(): Promise<ReadableSpan[]> {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'codec-test', 'deployment.count': 3 }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('codec-scope', '1.2.3');
  {
    const root = tracer.startSpan('invoke_agent');
    const ctx = trace.setSpan(ROOT_CONTEXT, root);
    const tool = tracer.startSpan('execute_tool search', { kind: SpanKind.CLIENT, startTime: [1_700_000_000, 123_456_789] }, ctx);
    tool.setAttributes({
      'gen_ai.tool.name': 'search',
      'gen_ai.tool.call.arguments': '{"q":"x"}',
      'an.int': 42,
      'a.double': 1.5,
      'a.bool': false,
      'a.list': ['a', 'b'],
    });
    tool.addEvent('retry', { attempt: 2 }, [1_700_000_000, 500_000_000]);
    tool.setStatus({ code: SpanStatusCode.ERROR, message: 'boom' });
    tool.end([1_700_000_001, 987_654_321]);
    root.end();
  }
  await provider.forceFlush();
  return exporter.getFinishedSpans();
}

describe('OTLP/JSON decoding against the OTLP specification example', () => {
  it('decodes examples/trace.json', () => {
    const request = decodeTraceRequestJson(SPEC_EXAMPLE);
    const rs = request.resourceSpans![0]!;
    expect(rs.resource!.attributes).toEqual([{ key: 'service.name', value: { stringValue: 'my.service' } }]);
    const ss = rs.scopeSpans![0]!;
    expect(ss.scope).toEqual({
      name: 'my.library',
      version: '1.0.0',
      attributes: [{ key: 'my.scope.attribute', value: { stringValue: 'some scope attribute' } }],
    });
    const span = ss.spans![0]!;
    expect(hex(span.traceId)).toBe('5b8efff798038103d269b633813fc60c');
    expect(hex(span.spanId)).toBe('eee19b7ec3c1b174');
    expect(hex(span.parentSpanId)).toBe('eee19b7ec3c1b173');
    expect(span.name).toBe("I'm a server span");
    expect(span.kind).toBe(2);
    expect(span.startTimeUnixNano).toBe('1544712660000000000');
    expect(span.endTimeUnixNano).toBe('1544712661000000000');
    expect(span.attributes).toEqual([{ key: 'my.span.attr', value: { stringValue: 'some value' } }]);
  });

  it('accepts the original snake_case field names too', () => {
    const snake = JSON.stringify(toSnakeCase(JSON.parse(SPEC_EXAMPLE)));
    expect(snake).toContain('"start_time_unix_nano"');
    expect(decodeTraceRequestJson(snake)).toEqual(decodeTraceRequestJson(SPEC_EXAMPLE));
  });

  it('keeps every digit of int64 values written as bare JSON numbers, and accepts them as strings', () => {
    const text = `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174",
      "startTimeUnixNano": 1700000000123456789, "endTimeUnixNano":"1700000000987654321", "kind":"SPAN_KIND_CLIENT",
      "status":{"code":"STATUS_CODE_ERROR","message":"x"},
      "attributes":[{"key":"big","value":{"intValue":9007199254740993}},{"key":"s","value":{"intValue":"-5"}},
        {"key":"nan","value":{"doubleValue":"NaN"}},{"key":"b","value":{"bytesValue":"AAEC"}},
        {"key":"text","value":{"stringValue":"\\"startTimeUnixNano\\": 12345678901234567890"}}]}]}]}]}`;
    const span = decodeTraceRequestJson(text).resourceSpans![0]!.scopeSpans![0]!.spans![0]!;
    expect(span.startTimeUnixNano).toBe('1700000000123456789');
    expect(span.endTimeUnixNano).toBe('1700000000987654321');
    expect(span.kind).toBe(3);
    expect(span.status).toEqual({ code: 2, message: 'x' });
    expect(span.attributes![0]!.value).toEqual({ intValue: '9007199254740993' });
    expect(span.attributes![1]!.value).toEqual({ intValue: '-5' });
    expect(Number.isNaN(span.attributes![2]!.value!.doubleValue)).toBe(true);
    expect([...span.attributes![3]!.value!.bytesValue!]).toEqual([0, 1, 2]);
    expect(span.attributes![4]!.value).toEqual({ stringValue: '"startTimeUnixNano": 12345678901234567890' });
  });

  it('names the offending field when the JSON does not have the OTLP shape', () => {
    const cases: [string, RegExp][] = [
      ['[]', /^body: expected an object \(ExportTraceServiceRequest\), got an array$/],
      ['{"resourceSpans":{}}', /^resourceSpans: expected an array, got an object$/],
      ['{"resourceSpans":[{"scopeSpans":[{"spans":[{"startTimeUnixNano":true}]}]}]}', /spans\[0\]\.startTimeUnixNano: expected an integer/],
      ['{"resourceSpans":[{"scopeSpans":[{"spans":[{"spanId":"xyz1"}]}]}]}', /spans\[0\]\.spanId: expected a hex string/],
      ['{"resourceSpans":[{"scopeSpans":[{"spans":[{"kind":"SIDEWAYS"}]}]}]}', /kind: expected an integer or a name of enum SpanKind/],
      ['{"resourceSpans":[{"scopeSpans":[{"spans":[{"flags":-1}]}]}]}', /flags: expected an integer in the range of fixed32 \(0 to 4294967295\)/],
      ['{"resourceSpans": [', /^invalid JSON/],
    ];
    for (const [body, message] of cases) {
      expect(() => decodeTraceRequestJson(body), body).toThrowError(message);
      expect(() => decodeTraceRequestJson(body)).toThrowError(OtlpDecodeError);
    }
  });

  it('accepts a body that starts with a UTF-8 byte-order mark', () => {
    const expected = decodeTraceRequestJson(SPEC_EXAMPLE);
    expect(decodeTraceRequestJson(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(SPEC_EXAMPLE)]))).toEqual(expected);
    expect(decodeTraceRequestJson(`\uFEFF${SPEC_EXAMPLE}`)).toEqual(expected);
  });

  it('ignores unknown fields, as OTLP receivers must', () => {
    const request = decodeTraceRequestJson('{"resourceSpans":[{"schemaUrl":"s","entityRefs2":[1]}],"somethingNew":{"x":1}}');
    expect(request).toEqual({ resourceSpans: [{ schemaUrl: 's' }] });
  });
});

describe('protobuf <-> JSON', () => {
  it('round-trips the specification example through protobuf and back to the same JSON', () => {
    const fromJson = decodeTraceRequestJson(SPEC_EXAMPLE);
    const bytes = encodeTraceRequestProto(fromJson);
    const fromProto = decodeTraceRequestProto(bytes);
    expect(fromProto).toEqual(fromJson);
    expect(JSON.parse(encodeTraceRequestJson(fromProto))).toEqual(
      JSON.parse(SPEC_EXAMPLE.replace(/"([0-9A-F]{16,32})"/g, (_, h: string) => `"${h.toLowerCase()}"`).replace(/: (\d{19})/g, ': "$1"')),
    );
  });

  it('decodes span by span (the receiver one-pass span decoder) exactly as protobufjs decodes the whole request', async () => {
    const limits = { maxAnyValueDepth: 128, maxValuesPerSpan: 10_000 };
    const fromSpec = encodeTraceRequestProto(decodeTraceRequestJson(SPEC_EXAMPLE));
    const fromSdk = ProtobufTraceSerializer.serializeRequest(await sdkSpans())!;
    for (const bytes of [fromSpec, fromSdk]) {
      const perSpan = await decodeTraceRequestProtoPerSpan(bytes, limits);
      expect(perSpan.rejectedSpans).toBe(0);
      expect(perSpan.request).toEqual(decodeTraceRequestProto(bytes));
    }
  });

  it('decodes attribute keys that recur, that do not, that are long, and that are not valid UTF-8', async () => {
    const limits = { maxAnyValueDepth: 128, maxValuesPerSpan: 10_000 };
    const spans = Array.from({ length: 1500 }, (_, i) => ({
      traceId: Buffer.alloc(16, 1),
      spanId: Buffer.alloc(8, (i % 250) + 1),
      attributes: [
        { key: 'gen_ai.tool.name', value: { stringValue: 'search' } },
        { key: `distinct.${i}`, value: { intValue: String(i) } },
        { key: `long.${'k'.repeat(100)}.${i % 3}`, value: { boolValue: true } },
        { key: 'clé', value: { stringValue: 'é' } },
      ],
    }));
    const bytes = Buffer.from(encodeTraceRequestProto({ resourceSpans: [{ scopeSpans: [{ spans }] }] }));
    const reference = decodeTraceRequestProto(bytes);
    const perSpan = await decodeTraceRequestProtoPerSpan(bytes, limits);
    expect(perSpan.rejectedSpans).toBe(0);
    expect(perSpan.request).toEqual(reference);
    // The key 'clé' (63 6c c3 a9) made 'cl', 0xE9, '!': not valid UTF-8 (protobufjs refuses it), decoded with U+FFFD, as Buffer decodes it.
    const invalid = Buffer.from(bytes);
    const utf8Key = Buffer.from([0x0a, 0x04, 0x63, 0x6c, 0xc3, 0xa9]);
    let replaced = 0;
    for (let at = invalid.indexOf(utf8Key); at >= 0; at = invalid.indexOf(utf8Key, at + 1), replaced++) invalid.set([0xe9, 0x21], at + 4);
    expect(replaced).toBe(spans.length);
    for (const span of reference.resourceSpans![0]!.scopeSpans![0]!.spans!) span.attributes![3]!.key = 'cl\ufffd!';
    expect((await decodeTraceRequestProtoPerSpan(invalid, limits)).request).toEqual(reference);
  });

  it('decodes fixed64 timestamps to the exact decimal, across the whole 64-bit range', async () => {
    const limits = { maxAnyValueDepth: 128, maxValuesPerSpan: 10_000 };
    const values = [1n, (1n << 53n) - 1n, 1n << 53n, (1n << 53n) + 1n, 1_700_000_000_000_000_000n, 1_700_000_000_999_999_999n, 10n ** 19n, (1n << 64n) - 1n];
    let seed = 7;
    const random32 = (): bigint => BigInt((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0));
    for (let i = 0; i < 2000; i++) values.push(((random32() << 32n) | random32()) >> BigInt(i % 12));
    const spans = values.map((v) => ({ traceId: Buffer.alloc(16, 1), spanId: Buffer.alloc(8, 2), startTimeUnixNano: v.toString() }));
    const decoded = await decodeTraceRequestProtoPerSpan(encodeTraceRequestProto({ resourceSpans: [{ scopeSpans: [{ spans }] }] }), limits);
    expect(decoded.request.resourceSpans![0]!.scopeSpans![0]!.spans!.map((s) => s.startTimeUnixNano)).toEqual(values.map((v) => (v === 0n ? undefined : v.toString())));
  });

  it('decodes what the OpenTelemetry JS SDK serialises, identically from protobuf and from JSON', async () => {
    const spans = await sdkSpans();
    const fromProto = decodeTraceRequestProto(ProtobufTraceSerializer.serializeRequest(spans)!);
    const fromJson = decodeTraceRequestJson(JsonTraceSerializer.serializeRequest(spans)!);
    expect(fromJson).toEqual(fromProto);

    const rs = fromProto.resourceSpans![0]!;
    expect(rs.resource!.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'codec-test' } });
    expect(rs.resource!.attributes).toContainEqual({ key: 'deployment.count', value: { intValue: '3' } });
    const ss = rs.scopeSpans![0]!;
    expect(ss.scope).toMatchObject({ name: 'codec-scope', version: '1.2.3' });
    const tool = ss.spans!.find((s) => s.name === 'execute_tool search')!;
    const root = ss.spans!.find((s) => s.name === 'invoke_agent')!;
    const sdkTool = spans.find((s) => s.name === 'execute_tool search')!;
    expect(hex(tool.traceId)).toBe(sdkTool.spanContext().traceId);
    expect(hex(tool.spanId)).toBe(sdkTool.spanContext().spanId);
    expect(hex(tool.parentSpanId)).toBe(hex(root.spanId));
    expect(tool.kind).toBe(3);
    expect(tool.startTimeUnixNano).toBe('1700000000123456789');
    expect(tool.endTimeUnixNano).toBe('1700000001987654321');
    expect(tool.status).toEqual({ code: 2, message: 'boom' });
    expect(tool.attributes).toEqual([
      { key: 'gen_ai.tool.name', value: { stringValue: 'search' } },
      { key: 'gen_ai.tool.call.arguments', value: { stringValue: '{"q":"x"}' } },
      { key: 'an.int', value: { intValue: '42' } },
      { key: 'a.double', value: { doubleValue: 1.5 } },
      { key: 'a.bool', value: { boolValue: false } },
      { key: 'a.list', value: { arrayValue: { values: [{ stringValue: 'a' }, { stringValue: 'b' }] } } },
    ]);
    expect(tool.events).toEqual([
      { name: 'retry', timeUnixNano: '1700000000500000000', attributes: [{ key: 'attempt', value: { intValue: '2' } }] },
    ]);

    // And what we encode, the SDK's own decoder reads back.
    const reencoded = decodeTraceRequestProto(encodeTraceRequestProto(fromJson));
    expect(reencoded).toEqual(fromProto);
  });

  it('encodes responses and error statuses that the SDK and the codecs read back', () => {
    const partial = { partialSuccess: { rejectedSpans: '2', errorMessage: 'bad ids' } };
    const viaSdk = ProtobufTraceSerializer.deserializeResponse(encodeTraceResponseProto(partial));
    expect(Number(viaSdk.partialSuccess?.rejectedSpans)).toBe(2);
    expect(viaSdk.partialSuccess?.errorMessage).toBe('bad ids');
    expect(JSON.parse(encodeTraceResponseJson(partial))).toEqual({ partialSuccess: { rejectedSpans: '2', errorMessage: 'bad ids' } });
    expect(encodeTraceResponseJson({})).toBe('{}');
    expect(encodeTraceResponseProto({}).length).toBe(0);
    const status = { code: 3, message: 'nope' };
    expect(decodeRpcStatusProto(encodeRpcStatusProto(status))).toEqual(status);
    expect(decodeRpcStatusJson(encodeRpcStatusJson(status))).toEqual(status);
  });

  it('rejects truncated protobuf and bytes that are not protobuf', () => {
    const bytes = encodeTraceRequestProto(decodeTraceRequestJson(SPEC_EXAMPLE));
    for (let cut = 1; cut < bytes.length; cut += 7) {
      expect(() => decodeTraceRequestProto(bytes.subarray(0, bytes.length - cut))).toThrowError(OtlpDecodeError);
    }
    expect(() => decodeTraceRequestProto(Buffer.from('<html>hello</html>'))).toThrowError(/invalid protobuf ExportTraceServiceRequest/);
    expect(decodeTraceRequestProto(new Uint8Array(0))).toEqual({} satisfies OtlpTraceRequest);
  });
});
