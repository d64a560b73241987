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

class Reader {
  pos: number;
  constructor(
    readonly buf: Buffer,
    start: number,
    readonly path: string,
  ) {
    this.pos = start;
  }

  fail(where: string, problem: string): never {
    throw new WireError(`${shortPath(where)}: ${problem}`);
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

  /** A 64-bit varint as two 32-bit halves. */
  varint64(end: number, where: string): [lo: number, hi: number] {
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
      if (b < 0x80) return [lo >>> 0, hi % TWO_32 >>> 0];
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
  // Below 2^53 a double holds it exactly; nanosecond timestamps are above, and take the BigInt path.
  if (hi < 0x200000) return String(hi * TWO_32 + lo);
  return ((BigInt(hi) << 32n) | BigInt(lo)).toString();
}

function signedString(lo: number, hi: number): string {
  if (hi < 0x80000000) return unsignedString(lo, hi);
  return (((BigInt(hi) << 32n) | BigInt(lo)) - (1n << 64n)).toString();
}

// proto3 scalars without explicit presence: a default value on the wire is the same as an absent field (protobufjs leaves it out too).
function setString<T extends object>(target: T, key: keyof T, value: string, empty = ''): void {
  if (value === empty) {
    if (key in target) delete target[key];
  }
  else (target as Record<keyof T, unknown>)[key] = value;
}
function setNumber<T extends object>(target: T, key: keyof T, value: number): void {
  if (value === 0) {
    if (key in target) delete target[key];
  }
  else (target as Record<keyof T, unknown>)[key] = value;
}
function setBytes<T extends object>(target: T, key: keyof T, value: Buffer): void {
  if (value.length === 0) {
    if (key in target) delete target[key];
  }
  else (target as Record<keyof T, unknown>)[key] = value;
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

  private tag(end: number, where: string): [id: number, wire: number] {
    const tag = this.r.uint32(end, where);
    const id = Math.floor(tag / 8);
    if (id === 0) this.r.fail(where, 'field number 0 is invalid');
    return [id, tag & 7];
  }

  private message<T>(field: string, wire: number, end: number, read: (end: number, where: string) => T): T {
    expectWire(this.r, wire, LEN, field);
    const length = this.r.length(end, field);
    const inner = this.r.pos + length;
    const value = read(inner, field);
    if (this.r.pos !== inner) this.r.fail(field, 'runs past the end of its message');
    return value;
  }

  span(end: number): OtlpSpan {
    const r = this.r;
    const span: OtlpSpan = {};
    const p = r.path;
    while (r.pos < end) {
      const [id, wire] = this.tag(end, p);
      switch (id) {
        case 1:
          expectWire(r, wire, LEN, `${p}.traceId`);
          setBytes(span, 'traceId', r.bytes(end, `${p}.traceId`));
          break;
        case 2:
          expectWire(r, wire, LEN, `${p}.spanId`);
          setBytes(span, 'spanId', r.bytes(end, `${p}.spanId`));
          break;
        case 3:
          expectWire(r, wire, LEN, `${p}.traceState`);
          setString(span, 'traceState', r.string(end, `${p}.traceState`));
          break;
        case 4:
          expectWire(r, wire, LEN, `${p}.parentSpanId`);
          setBytes(span, 'parentSpanId', r.bytes(end, `${p}.parentSpanId`));
          break;
        case 5:
          expectWire(r, wire, LEN, `${p}.name`);
          setString(span, 'name', r.string(end, `${p}.name`));
          break;
        case 6:
          expectWire(r, wire, VARINT, `${p}.kind`);
          setNumber(span, 'kind', r.uint32(end, `${p}.kind`) | 0);
          break;
        case 7:
          expectWire(r, wire, I64, `${p}.startTimeUnixNano`);
          setString(span, 'startTimeUnixNano', r.fixed64String(end, `${p}.startTimeUnixNano`), '0');
          break;
        case 8:
          expectWire(r, wire, I64, `${p}.endTimeUnixNano`);
          setString(span, 'endTimeUnixNano', r.fixed64String(end, `${p}.endTimeUnixNano`), '0');
          break;
        case 9:
          (span.attributes ??= []).push(this.message(`${p}.attributes`, wire, end, (e, w) => this.keyValue(e, w, 0)));
          break;
        case 10:
          expectWire(r, wire, VARINT, `${p}.droppedAttributesCount`);
          setNumber(span, 'droppedAttributesCount', r.uint32(end, `${p}.droppedAttributesCount`));
          break;
        case 11:
          (span.events ??= []).push(this.message(`${p}.events`, wire, end, (e, w) => this.event(e, w)));
          break;
        case 12:
          expectWire(r, wire, VARINT, `${p}.droppedEventsCount`);
          setNumber(span, 'droppedEventsCount', r.uint32(end, `${p}.droppedEventsCount`));
          break;
        case 13:
          (span.links ??= []).push(this.message(`${p}.links`, wire, end, (e, w) => this.link(e, w)));
          break;
        case 14:
          expectWire(r, wire, VARINT, `${p}.droppedLinksCount`);
          setNumber(span, 'droppedLinksCount', r.uint32(end, `${p}.droppedLinksCount`));
          break;
        case 15:
          span.status = this.message(`${p}.status`, wire, end, (e, w) => this.status(e, w));
          break;
        case 16:
          expectWire(r, wire, I32, `${p}.flags`);
          setNumber(span, 'flags', r.fixed32(end, `${p}.flags`));
          break;
        default:
          r.skip(wire, end, `${p}.#${id}`);
      }
    }
    return span;
  }

  private keyValue(end: number, where: string, depth: number): OtlpKeyValue {
    const r = this.r;
    const kv: OtlpKeyValue = { key: '' };
    while (r.pos < end) {
      const [id, wire] = this.tag(end, where);
      if (id === 1) {
        expectWire(r, wire, LEN, `${where}.key`);
        kv.key = r.string(end, `${where}.key`);
      } else if (id === 2) kv.value = this.message(`${where}.value`, wire, end, (e, w) => this.anyValue(e, w, depth));
      else r.skip(wire, end, `${where}.#${id}`);
    }
    return kv;
  }

  private anyValue(end: number, where: string, depth: number): OtlpAnyValue {
    if (++depth > this.limits.maxAnyValueDepth) this.r.fail(where, `attribute value nested deeper than ${this.limits.maxAnyValueDepth} levels`);
    if (--this.budget.left < 0) this.r.fail(where, `more than ${this.limits.maxValuesPerSpan} attribute values in one span`);
    const r = this.r;
    const value: OtlpAnyValue = {};
    // A oneof: the last member on the wire wins, as protobuf defines it.
    const only = (): void => {
      for (const k of Object.keys(value)) delete value[k as keyof OtlpAnyValue];
    };
    while (r.pos < end) {
      const [id, wire] = this.tag(end, where);
      switch (id) {
        case 1:
          expectWire(r, wire, LEN, `${where}.stringValue`);
          only();
          value.stringValue = r.string(end, `${where}.stringValue`);
          break;
        case 2: {
          expectWire(r, wire, VARINT, `${where}.boolValue`);
          only();
          const [lo, hi] = r.varint64(end, `${where}.boolValue`);
          value.boolValue = lo !== 0 || hi !== 0;
          break;
        }
        case 3: {
          expectWire(r, wire, VARINT, `${where}.intValue`);
          only();
          const [lo, hi] = r.varint64(end, `${where}.intValue`);
          value.intValue = signedString(lo, hi);
          break;
        }
        case 4:
          expectWire(r, wire, I64, `${where}.doubleValue`);
          only();
          value.doubleValue = r.double(end, `${where}.doubleValue`);
          break;
        case 5: {
          only();
          const values = this.message(`${where}.arrayValue`, wire, end, (e, w) => this.list(e, w, depth, (e2, w2) => this.anyValue(e2, w2, depth)));
          value.arrayValue = values.length > 0 ? { values } : {};
          break;
        }
        case 6: {
          only();
          const values = this.message(`${where}.kvlistValue`, wire, end, (e, w) => this.list(e, w, depth, (e2, w2) => this.keyValue(e2, w2, depth)));
          value.kvlistValue = values.length > 0 ? { values } : {};
          break;
        }
        case 7:
          expectWire(r, wire, LEN, `${where}.bytesValue`);
          only();
          value.bytesValue = r.bytes(end, `${where}.bytesValue`);
          break;
        default:
          r.skip(wire, end, `${where}.#${id}`);
      }
    }
    return value;
  }

  /** ArrayValue / KeyValueList: field 1 repeated. */
  private list<T>(end: number, where: string, _depth: number, item: (end: number, where: string) => T): T[] {
    const r = this.r;
    const out: T[] = [];
    while (r.pos < end) {
      const [id, wire] = this.tag(end, where);
      if (id === 1) out.push(this.message(`${where}.values`, wire, end, item));
      else r.skip(wire, end, `${where}.#${id}`);
    }
    return out;
  }

  private event(end: number, where: string): OtlpEvent {
    const r = this.r;
    const event: OtlpEvent = {};
    while (r.pos < end) {
      const [id, wire] = this.tag(end, where);
      if (id === 1) {
        expectWire(r, wire, I64, `${where}.timeUnixNano`);
        setString(event, 'timeUnixNano', r.fixed64String(end, `${where}.timeUnixNano`), '0');
      } else if (id === 2) {
        expectWire(r, wire, LEN, `${where}.name`);
        setString(event, 'name', r.string(end, `${where}.name`));
      } else if (id === 3) (event.attributes ??= []).push(this.message(`${where}.attributes`, wire, end, (e, w) => this.keyValue(e, w, 0)));
      else if (id === 4) {
        expectWire(r, wire, VARINT, `${where}.droppedAttributesCount`);
        setNumber(event, 'droppedAttributesCount', r.uint32(end, `${where}.droppedAttributesCount`));
      } else r.skip(wire, end, `${where}.#${id}`);
    }
    return event;
  }

  private link(end: number, where: string): OtlpLink {
    const r = this.r;
    const link: OtlpLink = {};
    while (r.pos < end) {
      const [id, wire] = this.tag(end, where);
      if (id === 1) {
        expectWire(r, wire, LEN, `${where}.traceId`);
        setBytes(link, 'traceId', r.bytes(end, `${where}.traceId`));
      } else if (id === 2) {
        expectWire(r, wire, LEN, `${where}.spanId`);
        setBytes(link, 'spanId', r.bytes(end, `${where}.spanId`));
      } else if (id === 3) {
        expectWire(r, wire, LEN, `${where}.traceState`);
        setString(link, 'traceState', r.string(end, `${where}.traceState`));
      } else if (id === 4) (link.attributes ??= []).push(this.message(`${where}.attributes`, wire, end, (e, w) => this.keyValue(e, w, 0)));
      else if (id === 5) {
        expectWire(r, wire, VARINT, `${where}.droppedAttributesCount`);
        setNumber(link, 'droppedAttributesCount', r.uint32(end, `${where}.droppedAttributesCount`));
      } else if (id === 6) {
        expectWire(r, wire, I32, `${where}.flags`);
        setNumber(link, 'flags', r.fixed32(end, `${where}.flags`));
      } else r.skip(wire, end, `${where}.#${id}`);
    }
    return link;
  }

  private status(end: number, where: string): OtlpStatus {
    const r = this.r;
    const status: OtlpStatus = {};
    while (r.pos < end) {
      const [id, wire] = this.tag(end, where);
      if (id === 2) {
        expectWire(r, wire, LEN, `${where}.message`);
        setString(status, 'message', r.string(end, `${where}.message`));
      } else if (id === 3) {
        expectWire(r, wire, VARINT, `${where}.code`);
        setNumber(status, 'code', r.uint32(end, `${where}.code`) | 0);
      } else r.skip(wire, end, `${where}.#${id}`);
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
