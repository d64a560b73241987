import { shortPath } from './otlp-model.js';
import type { OtlpAnyValue, OtlpEvent, OtlpKeyValue, OtlpLink, OtlpSpan, OtlpStatus } from './otlp-model.js';
import type { SpanLimits } from './otlp-wire.js';
import { WireError } from './otlp-wire.js';

/**
 * Decodes one OTLP `Span` straight from its wire bytes into the collector's
 * model, checking as it goes what `checkMessage` checks (wire types, lengths,
 * AnyValue depth, values per span) — one pass instead of a check, a
 * protobufjs decode and a `toObject` conversion. Bytes fields are views of the
 * request body, not copies. The output is what `SpanType.toObject(…, { longs:
 * String, enums: Number })` gives for the same bytes.
 */

const VARINT = 0;
const I64 = 1;
const LEN = 2;
const I32 = 5;
const TWO_32 = 4294967296;
const NANOS_PER_SECOND = 1_000_000_000;

class Reader {
  pos: number;
  /** High half of the last `varint64` read (returned separately: no array per value). */
  hi = 0;
  /** Field names from the span down to the message being read; joined into a path only when something fails. */
  readonly stack: string[] = [];
  constructor(
    readonly buf: Buffer,
    start: number,
    readonly path: string,
  ) {
    this.pos = start;
  }

  /** `where` is the field being read ('' for the message itself). */
  fail(where: string, problem: string): never {
    const parts = where === '' ? this.stack : [...this.stack, where];
    throw new WireError(`${shortPath(parts.length > 0 ? `${this.path}.${parts.join('.')}` : this.path)}: ${problem}`);
  }

  /** A varint that fits 32 bits unsigned (tags, lengths, enums, counts); longer ones are refused, as nothing in OTLP needs them. */
  uint32(end: number, where: string): number {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (this.pos >= end) this.fail(where, 'truncated varint');
      const b = this.buf[this.pos++]!;
      value += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return value > 0xffffffff ? value % TWO_32 : value;
    }
    // Enums and int32 values are sign-extended to 10 bytes on the wire: keep the low 32 bits, skip the rest.
    return this.skipVarintTail(end, where, value);
  }

  private skipVarintTail(end: number, where: string, value: number): number {
    for (let i = 5; i < 10; i++) {
      if (this.pos >= end) this.fail(where, 'truncated varint');
      if (this.buf[this.pos++]! < 0x80) return value % TWO_32;
    }
    this.fail(where, 'varint longer than 10 bytes');
  }

  /** A 64-bit varint's low 32 bits; its high 32 bits are left in `hi`. */
  varint64(end: number, where: string): number {
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= end) this.fail(where, 'truncated varint');
      const b = this.buf[this.pos++]!;
      const bits = b & 0x7f;
      if (i < 4) lo += bits * 2 ** (7 * i);
      else if (i === 4) {
        lo += (bits & 0x0f) * 2 ** 28;
        hi += bits >> 4;
      } else hi += bits * 2 ** (7 * i - 32);
      if (b < 0x80) {
        this.hi = hi % TWO_32 >>> 0;
        return lo >>> 0;
      }
    }
    this.fail(where, 'varint longer than 10 bytes');
  }

  length(end: number, where: string): number {
    const length = this.uint32(end, where);
    if (this.pos + length > end) this.fail(where, `length ${length} runs past the end of its message`);
    return length;
  }

  string(end: number, where: string): string {
    const length = this.length(end, where);
    const s = this.buf.toString('utf8', this.pos, this.pos + length);
    this.pos += length;
    return s;
  }

  bytes(end: number, where: string): Buffer {
    const length = this.length(end, where);
    const b = this.buf.subarray(this.pos, this.pos + length);
    this.pos += length;
    return b;
  }

  fixed32(end: number, where: string): number {
    if (this.pos + 4 > end) this.fail(where, 'truncated fixed32');
    const v = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }

  fixed64String(end: number, where: string): string {
    if (this.pos + 8 > end) this.fail(where, 'truncated fixed64');
    const lo = this.buf.readUInt32LE(this.pos);
    const hi = this.buf.readUInt32LE(this.pos + 4);
    this.pos += 8;
    return unsignedString(lo, hi);
  }

  double(end: number, where: string): number {
    if (this.pos + 8 > end) this.fail(where, 'truncated double');
    const v = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return v;
  }

  /** Skips an unknown field, checking that it is well-formed. */
  skip(wire: number, end: number, where: string): void {
    switch (wire) {
      case VARINT:
        this.varint64(end, where);
        return;
      case I64:
        if (this.pos + 8 > end) this.fail(where, 'truncated field');
        this.pos += 8;
        return;
      case LEN:
        this.pos += this.length(end, where);
        return;
      case I32:
        if (this.pos + 4 > end) this.fail(where, 'truncated field');
        this.pos += 4;
        return;
      default:
        this.fail(where, `unsupported wire type ${wire}`);
    }
  }
}

function unsignedString(lo: number, hi: number): string {
  // Below 2^53 a double holds it exactly.
  if (hi < 0x200000) return String(hi * TWO_32 + lo);
  // Above (every nanosecond timestamp): divided by 10^9 in 16-bit limbs, each step exact in a double, with no BigInt to allocate.
  let seconds = 0;
  let rest = 0;
  for (let i = 0; i < 4; i++) {
    const limb = i === 0 ? hi >>> 16 : i === 1 ? hi & 0xffff : i === 2 ? lo >>> 16 : lo & 0xffff;
    const current = rest * 0x10000 + limb;
    const q = Math.floor(current / NANOS_PER_SECOND);
    rest = current - q * NANOS_PER_SECOND;
    seconds = seconds * 0x10000 + q;
  }
  return `${seconds}${String(rest).padStart(9, '0')}`;
}

function signedString(lo: number, hi: number): string {
  if (hi < 0x80000000) return unsignedString(lo, hi);
  return (((BigInt(hi) << 32n) | BigInt(lo)) - (1n << 64n)).toString();
}

// proto3 scalars without explicit presence: a default value on the wire is the same as an absent field (protobufjs leaves it out too).
// Fields are set inline (one object shape per call site, which V8 optimises); only this rare case goes through a shared helper.
function clear<T extends object>(target: T, key: keyof T): void {
  if (key in target) delete target[key];
}

/** A oneof member came after another: the last one on the wire wins. */
function clearOneof(value: OtlpAnyValue): void {
  for (const k of Object.keys(value)) delete value[k as keyof OtlpAnyValue];
}

interface Budget {
  left: number;
}

/** Expects `wire` for field `name`; a mismatch is malformed data, as in the Go Collector. */
function expectWire(r: Reader, wire: number, expected: number, where: string): void {
  if (wire !== expected) r.fail(where, `wrong wire type ${wire} (expected ${expected})`);
}

class SpanDecoder {
  constructor(
    private readonly r: Reader,
    private readonly limits: SpanLimits,
    private readonly budget: Budget,
  ) {}

  /** A field's tag: its number is `tag >>> 3`, its wire type `tag & 7` (apart, not as an array: this runs for every field). */
  private tag(end: number, where: string): number {
    const tag = this.r.uint32(end, where);
    if (tag < 8) this.r.fail(where, 'field number 0 is invalid');
    return tag;
  }

  /** Enters a sub-message in `field`; returns where it ends. Pair with `close`. */
  private open(field: string, wire: number, end: number): number {
    expectWire(this.r, wire, LEN, field);
    const length = this.r.length(end, field); // moves pos past the length prefix
    const inner = this.r.pos + length;
    this.r.stack.push(field);
    return inner;
  }

  private close(inner: number): void {
    if (this.r.pos !== inner) this.r.fail('', 'runs past the end of its message');
    this.r.stack.pop();
  }

  private keyValueIn(field: string, wire: number, end: number, depth: number): OtlpKeyValue {
    const inner = this.open(field, wire, end);
    const kv = this.keyValue(inner, depth);
    this.close(inner);
    return kv;
  }

  private anyValueIn(field: string, wire: number, end: number, depth: number): OtlpAnyValue {
    const inner = this.open(field, wire, end);
    const value = this.anyValue(inner, depth);
    this.close(inner);
    return value;
  }

  span(end: number): OtlpSpan {
    const r = this.r;
    const span: OtlpSpan = {};
    while (r.pos < end) {
      const tag = this.tag(end, '');
      const wire = tag & 7;
      const id = tag >>> 3;
      switch (id) {
        case 1: {
          expectWire(r, wire, LEN, 'traceId');
          const v = r.bytes(end, 'traceId');
          if (v.length !== 0) span.traceId = v;
          else clear(span, 'traceId');
          break;
        }
        case 2: {
          expectWire(r, wire, LEN, 'spanId');
          const v = r.bytes(end, 'spanId');
          if (v.length !== 0) span.spanId = v;
          else clear(span, 'spanId');
          break;
        }
        case 3: {
          expectWire(r, wire, LEN, 'traceState');
          const v = r.string(end, 'traceState');
          if (v !== '') span.traceState = v;
          else clear(span, 'traceState');
          break;
        }
        case 4: {
          expectWire(r, wire, LEN, 'parentSpanId');
          const v = r.bytes(end, 'parentSpanId');
          if (v.length !== 0) span.parentSpanId = v;
          else clear(span, 'parentSpanId');
          break;
        }
        case 5: {
          expectWire(r, wire, LEN, 'name');
          const v = r.string(end, 'name');
          if (v !== '') span.name = v;
          else clear(span, 'name');
          break;
        }
        case 6: {
          expectWire(r, wire, VARINT, 'kind');
          const v = r.uint32(end, 'kind') | 0;
          if (v !== 0) span.kind = v;
          else clear(span, 'kind');
          break;
        }
        case 7: {
          expectWire(r, wire, I64, 'startTimeUnixNano');
          const v = r.fixed64String(end, 'startTimeUnixNano');
          if (v !== '0') span.startTimeUnixNano = v;
          else clear(span, 'startTimeUnixNano');
          break;
        }
        case 8: {
          expectWire(r, wire, I64, 'endTimeUnixNano');
          const v = r.fixed64String(end, 'endTimeUnixNano');
          if (v !== '0') span.endTimeUnixNano = v;
          else clear(span, 'endTimeUnixNano');
          break;
        }
        case 9:
          (span.attributes ??= []).push(this.keyValueIn('attributes', wire, end, 0));
          break;
        case 10: {
          expectWire(r, wire, VARINT, 'droppedAttributesCount');
          const v = r.uint32(end, 'droppedAttributesCount');
          if (v !== 0) span.droppedAttributesCount = v;
          else clear(span, 'droppedAttributesCount');
          break;
        }
        case 11: {
          const inner = this.open('events', wire, end);
          (span.events ??= []).push(this.event(inner));
          this.close(inner);
          break;
        }
        case 12: {
          expectWire(r, wire, VARINT, 'droppedEventsCount');
          const v = r.uint32(end, 'droppedEventsCount');
          if (v !== 0) span.droppedEventsCount = v;
          else clear(span, 'droppedEventsCount');
          break;
        }
        case 13: {
          const inner = this.open('links', wire, end);
          (span.links ??= []).push(this.link(inner));
          this.close(inner);
          break;
        }
        case 14: {
          expectWire(r, wire, VARINT, 'droppedLinksCount');
          const v = r.uint32(end, 'droppedLinksCount');
          if (v !== 0) span.droppedLinksCount = v;
          else clear(span, 'droppedLinksCount');
          break;
        }
        case 15: {
          const inner = this.open('status', wire, end);
          span.status = this.status(inner);
          this.close(inner);
          break;
        }
        case 16: {
          expectWire(r, wire, I32, 'flags');
          const v = r.fixed32(end, 'flags');
          if (v !== 0) span.flags = v;
          else clear(span, 'flags');
          break;
        }
        default:
          r.skip(wire, end, `#${id}`);
      }
    }
    return span;
  }

  private keyValue(end: number, depth: number): OtlpKeyValue {
    const r = this.r;
    const kv: OtlpKeyValue = { key: '' };
    while (r.pos < end) {
      const tag = this.tag(end, '');
      const wire = tag & 7;
      const id = tag >>> 3;
      if (id === 1) {
        expectWire(r, wire, LEN, 'key');
        kv.key = r.string(end, 'key');
      } else if (id === 2) kv.value = this.anyValueIn('value', wire, end, depth);
      else r.skip(wire, end, `#${id}`);
    }
    return kv;
  }

  private anyValue(end: number, depth: number): OtlpAnyValue {
    if (++depth > this.limits.maxAnyValueDepth) this.r.fail('', `attribute value nested deeper than ${this.limits.maxAnyValueDepth} levels`);
    if (--this.budget.left < 0) this.r.fail('', `more than ${this.limits.maxValuesPerSpan} attribute values in one span`);
    const r = this.r;
    const value: OtlpAnyValue = {};
    // A oneof: the last member on the wire wins, as protobuf defines it.
    let members = 0;
    while (r.pos < end) {
      const tag = this.tag(end, '');
      const wire = tag & 7;
      const id = tag >>> 3;
      switch (id) {
        case 1:
          expectWire(r, wire, LEN, 'stringValue');
          if (members++ > 0) clearOneof(value);
          value.stringValue = r.string(end, 'stringValue');
          break;
        case 2: {
          expectWire(r, wire, VARINT, 'boolValue');
          if (members++ > 0) clearOneof(value);
          const lo = r.varint64(end, 'boolValue');
          value.boolValue = lo !== 0 || r.hi !== 0;
          break;
        }
        case 3: {
          expectWire(r, wire, VARINT, 'intValue');
          if (members++ > 0) clearOneof(value);
          const lo = r.varint64(end, 'intValue');
          value.intValue = signedString(lo, r.hi);
          break;
        }
        case 4:
          expectWire(r, wire, I64, 'doubleValue');
          if (members++ > 0) clearOneof(value);
          value.doubleValue = r.double(end, 'doubleValue');
          break;
        case 5: {
          if (members++ > 0) clearOneof(value);
          const inner = this.open('arrayValue', wire, end);
          const values: OtlpAnyValue[] = [];
          this.eachValue(inner, (field, w, e) => values.push(this.anyValueIn(field, w, e, depth)));
          this.close(inner);
          value.arrayValue = values.length > 0 ? { values } : {};
          break;
        }
        case 6: {
          if (members++ > 0) clearOneof(value);
          const inner = this.open('kvlistValue', wire, end);
          const values: OtlpKeyValue[] = [];
          this.eachValue(inner, (field, w, e) => values.push(this.keyValueIn(field, w, e, depth)));
          this.close(inner);
          value.kvlistValue = values.length > 0 ? { values } : {};
          break;
        }
        case 7:
          expectWire(r, wire, LEN, 'bytesValue');
          if (members++ > 0) clearOneof(value);
          value.bytesValue = r.bytes(end, 'bytesValue');
          break;
        default:
          r.skip(wire, end, `#${id}`);
      }
    }
    return value;
  }

  /** ArrayValue / KeyValueList: calls `item` for each `values` (field 1) entry, skipping unknown fields. */
  private eachValue(end: number, item: (field: string, wire: number, end: number) => void): void {
    const r = this.r;
    while (r.pos < end) {
      const tag = this.tag(end, '');
      const wire = tag & 7;
      const id = tag >>> 3;
      if (id === 1) item('values', wire, end);
      else r.skip(wire, end, `#${id}`);
    }
  }

  private event(end: number): OtlpEvent {
    const r = this.r;
    const event: OtlpEvent = {};
    while (r.pos < end) {
      const tag = this.tag(end, '');
      const wire = tag & 7;
      const id = tag >>> 3;
      if (id === 1) {
        expectWire(r, wire, I64, 'timeUnixNano');
        const v = r.fixed64String(end, 'timeUnixNano');
        if (v !== '0') event.timeUnixNano = v;
        else clear(event, 'timeUnixNano');
      } else if (id === 2) {
        expectWire(r, wire, LEN, 'name');
        const v = r.string(end, 'name');
        if (v !== '') event.name = v;
        else clear(event, 'name');
      } else if (id === 3) (event.attributes ??= []).push(this.keyValueIn('attributes', wire, end, 0));
      else if (id === 4) {
        expectWire(r, wire, VARINT, 'droppedAttributesCount');
        const v = r.uint32(end, 'droppedAttributesCount');
        if (v !== 0) event.droppedAttributesCount = v;
        else clear(event, 'droppedAttributesCount');
      } else r.skip(wire, end, `#${id}`);
    }
    return event;
  }

  private link(end: number): OtlpLink {
    const r = this.r;
    const link: OtlpLink = {};
    while (r.pos < end) {
      const tag = this.tag(end, '');
      const wire = tag & 7;
      const id = tag >>> 3;
      if (id === 1) {
        expectWire(r, wire, LEN, 'traceId');
        const v = r.bytes(end, 'traceId');
        if (v.length !== 0) link.traceId = v;
        else clear(link, 'traceId');
      } else if (id === 2) {
        expectWire(r, wire, LEN, 'spanId');
        const v = r.bytes(end, 'spanId');
        if (v.length !== 0) link.spanId = v;
        else clear(link, 'spanId');
      } else if (id === 3) {
        expectWire(r, wire, LEN, 'traceState');
        const v = r.string(end, 'traceState');
        if (v !== '') link.traceState = v;
        else clear(link, 'traceState');
      } else if (id === 4) (link.attributes ??= []).push(this.keyValueIn('attributes', wire, end, 0));
      else if (id === 5) {
        expectWire(r, wire, VARINT, 'droppedAttributesCount');
        const v = r.uint32(end, 'droppedAttributesCount');
        if (v !== 0) link.droppedAttributesCount = v;
        else clear(link, 'droppedAttributesCount');
      } else if (id === 6) {
        expectWire(r, wire, I32, 'flags');
        const v = r.fixed32(end, 'flags');
        if (v !== 0) link.flags = v;
        else clear(link, 'flags');
      } else r.skip(wire, end, `#${id}`);
    }
    return link;
  }

  private status(end: number): OtlpStatus {
    const r = this.r;
    const status: OtlpStatus = {};
    while (r.pos < end) {
      const tag = this.tag(end, '');
      const wire = tag & 7;
      const id = tag >>> 3;
      if (id === 2) {
        expectWire(r, wire, LEN, 'message');
        const v = r.string(end, 'message');
        if (v !== '') status.message = v;
        else clear(status, 'message');
      } else if (id === 3) {
        expectWire(r, wire, VARINT, 'code');
        const v = r.uint32(end, 'code') | 0;
        if (v !== 0) status.code = v;
        else clear(status, 'code');
      } else r.skip(wire, end, `#${id}`);
    }
    return status;
  }
}

/** Decodes `buf[start, end)` as a Span; WireError (its message starting with `path`) on malformed data or a limit exceeded. */
export function decodeSpanWire(buf: Buffer, start: number, end: number, path: string, limits: SpanLimits): OtlpSpan {
  const reader = new Reader(buf, start, path);
  const span = new SpanDecoder(reader, limits, { left: limits.maxValuesPerSpan }).span(end);
  if (reader.pos !== end) reader.fail(path, 'runs past the end of its message');
  return span;
}
