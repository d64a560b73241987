import { decodeProblem, rejectSpan } from './otlp-model.js';
import type { OtlpResourceSpans, OtlpSpan, SpanRejections } from './otlp-model.js';
import { InstrumentationScopeType, ResourceType, SpanType } from './otlp-schema.js';
import { encodeMessage, writeEvent, writeKeyValue } from './otlp-value-writer.js';
import { ProtoWriter } from './proto-writer.js';

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

/** One writer for every chunk (encoding is synchronous): its op lists keep their capacity. */
const writer = new ProtoWriter();

/** A span as field 2 of its ScopeSpans: its received bytes plus what was appended, or encoded whole. */
function writeSpan(w: ProtoWriter, span: OtlpSpan, wire: WireBytes, edits: SpanEdits): void {
  const raw = wire.get(span);
  const edit = edits.get(span);
  if (!raw || edit === undefined || edit === 'rewritten') {
    w.bytesField(2, encodeMessage(SpanType, span));
    return;
  }
  w.open(2);
  w.raw(raw);
  const attributes = span.attributes ?? [];
  for (let i = edit.attributes; i < attributes.length; i++) writeKeyValue(w, 9, attributes[i]!);
  const events = span.events ?? [];
  for (let i = edit.events; i < events.length; i++) writeEvent(w, 11, events[i]!);
  w.close();
}

/**
 * One chunk (resource groups holding at most a batch of spans) as an encoded
 * request. A span that cannot be encoded is refused alone.
 */
export function encodeChunk(resourceSpans: readonly OtlpResourceSpans[], wire: WireBytes, edits: SpanEdits, refused: SpanRejections): { body: Buffer; spans: number } {
  const w = writer;
  w.clear();
  let spans = 0;
  for (const rs of resourceSpans) {
    // A resource none of whose spans could be encoded is left out whole.
    const beforeResource = w.mark();
    w.open(1);
    if (rs.resource) w.bytesField(1, wire.get(rs.resource) ?? encodeMessage(ResourceType, rs.resource));
    let kept = 0;
    for (const ss of rs.scopeSpans ?? []) {
      w.open(2);
      if (ss.scope) w.bytesField(1, wire.get(ss.scope) ?? encodeMessage(InstrumentationScopeType, ss.scope));
      for (const span of ss.spans ?? []) {
        const beforeSpan = w.mark();
        try {
          writeSpan(w, span, wire, edits);
          spans++;
          kept++;
        } catch (err) {
          w.reset(beforeSpan);
          rejectSpan(refused, `span ${Buffer.from(span.spanId ?? []).toString('hex')}`, `cannot be encoded for forwarding: ${decodeProblem(err)}`);
        }
      }
      if (ss.schemaUrl) w.stringField(3, ss.schemaUrl);
      w.close();
    }
    if (rs.schemaUrl) w.stringField(3, rs.schemaUrl);
    w.close();
    if (kept === 0) w.reset(beforeResource);
  }
  return { body: w.finish(), spans };
}
