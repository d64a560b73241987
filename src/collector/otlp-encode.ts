import type { Type } from 'protobufjs';
import { decodeProblem, rejectSpan } from './otlp-model.js';
import type { OtlpResourceSpans, OtlpSpan, SpanRejections } from './otlp-model.js';
import { EventType, InstrumentationScopeType, KeyValueType, ResourceType, SpanType } from './otlp-schema.js';

/**
 * Encodes queued spans as an OTLP/protobuf ExportTraceServiceRequest without
 * re-encoding what arrived as protobuf: a span decoded from wire bytes is
 * written as those bytes followed by the attributes and events the detection
 * engine appended (protobuf merges a message's repeated fields by
 * concatenation, so appending fields to an encoded message appends to its
 * lists). Resources and scopes are copied as received too. Only spans that
 * came as JSON, or whose existing attributes were changed, are encoded whole.
 * Unknown fields in received spans are kept, as a proxy should.
 */

/** The original wire bytes of decoded messages (resources, scopes, spans), when they came as protobuf. */
export type WireBytes = WeakMap<object, Uint8Array>;

/** What the detection engine did to a span: appended to its lists (counts before), or changed it in place. */
export type SpanEdit = { attributes: number; events: number } | 'rewritten';
export type SpanEdits = WeakMap<OtlpSpan, SpanEdit>;

function tag(field: number): number {
  return field * 8 + 2;
}

function varintLength(n: number): number {
  let len = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    len++;
  }
  return len;
}

/** Parts of a message being assembled; lengths are known before anything is copied. */
class Parts {
  readonly list: Uint8Array[] = [];
  length = 0;

  raw(bytes: Uint8Array): void {
    this.list.push(bytes);
    this.length += bytes.length;
  }

  /** A length-delimited field whose payload is `inner`. */
  field(field: number, inner: Parts | Uint8Array): void {
    const length = inner.length;
    const header = Buffer.allocUnsafe(varintLength(field * 8 + 2) + varintLength(length));
    let pos = writeVarint(header, 0, tag(field));
    pos = writeVarint(header, pos, length);
    this.raw(header);
    if (inner instanceof Parts) for (const p of inner.list) this.raw(p);
    else this.raw(inner);
  }

  string(field: number, value: string | undefined): void {
    if (value) this.field(field, Buffer.from(value, 'utf8'));
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.list, this.length);
  }
}

function writeVarint(buf: Buffer, pos: number, n: number): number {
  while (n >= 0x80) {
    buf[pos++] = (n % 128) | 0x80;
    n = Math.floor(n / 128);
  }
  buf[pos++] = n;
  return pos;
}

const encodeMessage = (type: Type, value: object): Uint8Array => type.encode(type.fromObject(value)).finish();

function spanBytes(span: OtlpSpan, wire: WireBytes, edits: SpanEdits): Parts | Uint8Array {
  const raw = wire.get(span);
  const edit = edits.get(span);
  if (!raw || edit === undefined || edit === 'rewritten') return encodeMessage(SpanType, span);
  const parts = new Parts();
  parts.raw(raw);
  for (const kv of span.attributes?.slice(edit.attributes) ?? []) parts.field(9, encodeMessage(KeyValueType, kv));
  for (const event of span.events?.slice(edit.events) ?? []) parts.field(11, encodeMessage(EventType, event));
  return parts;
}

/**
 * One chunk (resource groups holding at most a batch of spans) as an encoded
 * request. A span that cannot be encoded is refused alone.
 */
export function encodeChunk(resourceSpans: readonly OtlpResourceSpans[], wire: WireBytes, edits: SpanEdits, refused: SpanRejections): { body: Buffer; spans: number } {
  const request = new Parts();
  let spans = 0;
  for (const rs of resourceSpans) {
    const rsParts = new Parts();
    if (rs.resource) rsParts.field(1, wire.get(rs.resource) ?? encodeMessage(ResourceType, rs.resource));
    let kept = 0;
    for (const ss of rs.scopeSpans ?? []) {
      const ssParts = new Parts();
      if (ss.scope) ssParts.field(1, wire.get(ss.scope) ?? encodeMessage(InstrumentationScopeType, ss.scope));
      for (const span of ss.spans ?? []) {
        try {
          ssParts.field(2, spanBytes(span, wire, edits));
          spans++;
          kept++;
        } catch (err) {
          rejectSpan(refused, `span ${Buffer.from(span.spanId ?? []).toString('hex')}`, `cannot be encoded for forwarding: ${decodeProblem(err)}`);
        }
      }
      ssParts.string(3, ss.schemaUrl);
      rsParts.field(2, ssParts);
    }
    rsParts.string(3, rs.schemaUrl);
    if (kept > 0) request.field(1, rsParts);
  }
  return { body: request.toBuffer(), spans };
}
