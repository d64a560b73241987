import protobuf from 'protobufjs';
import type { Type } from 'protobufjs';
import { shortPath } from './otlp-model.js';

/**
 * A schema-driven check of protobuf wire data, run before protobufjs decodes
 * it. protobufjs skips a known field sent with the wrong wire type as if it
 * were unknown, and refuses a whole message past its recursion limit; OTLP
 * receivers must instead refuse malformed data (as the Go Collector does) and
 * should accept attribute values nested as deep as a documented limit. The
 * walk is iterative over fields and recursive only into sub-messages, bounded
 * by `maxAnyValueDepth`, so hostile nesting never exhausts the stack.
 */

const WIRE_VARINT = 0;
const WIRE_I64 = 1;
const WIRE_LEN = 2;
const WIRE_I32 = 5;

const WIRE_OF_SCALAR: Record<string, number> = {
  int32: WIRE_VARINT,
  int64: WIRE_VARINT,
  uint32: WIRE_VARINT,
  uint64: WIRE_VARINT,
  sint32: WIRE_VARINT,
  sint64: WIRE_VARINT,
  bool: WIRE_VARINT,
  fixed64: WIRE_I64,
  sfixed64: WIRE_I64,
  double: WIRE_I64,
  fixed32: WIRE_I32,
  sfixed32: WIRE_I32,
  float: WIRE_I32,
  string: WIRE_LEN,
  bytes: WIRE_LEN,
};

export interface FieldRule {
  name: string;
  wire: number;
  /** Repeated numeric fields may also come packed (one length-delimited run). */
  packable: boolean;
  message: Type | undefined;
}

const ANY_VALUE = 'AnyValue';

const rulesByType = new Map<Type, Map<number, FieldRule>>();
function rulesOf(type: Type): Map<number, FieldRule> {
  let rules = rulesByType.get(type);
  if (rules) return rules;
  rules = new Map();
  for (const field of type.fieldsArray) {
    const resolved = field.resolve().resolvedType;
    const message = resolved instanceof protobuf.Type ? resolved : undefined;
    const wire = message ? WIRE_LEN : resolved instanceof protobuf.Enum ? WIRE_VARINT : WIRE_OF_SCALAR[field.type];
    if (wire === undefined) throw new Error(`otlp-wire: unsupported field type ${field.type}`);
    rules.set(field.id, { name: field.name, wire, packable: field.repeated && wire !== WIRE_LEN, message });
  }
  rulesByType.set(type, rules);
  return rules;
}

/** What one span may hold: AnyValue nesting depth, and AnyValues in all (attributes, nested values, event and link attributes). */
export interface SpanLimits {
  maxAnyValueDepth: number;
  maxValuesPerSpan: number;
}

/** AnyValues a span may still hold, counted down while it is checked. */
export interface ValueBudget {
  left: number;
  readonly limit: number;
}

/** Malformed wire data; `path` names the field, as the JSON decoder's errors do. */
export class WireError extends Error {}

/** Reads a base-128 varint's end position; throws on truncation or more than 10 bytes. */
function skipVarint(buf: Uint8Array, pos: number, end: number, path: string): number {
  for (let i = 0; i < 10; i++) {
    if (pos >= end) throw new WireError(`${shortPath(path)}: truncated varint`);
    if ((buf[pos++]! & 0x80) === 0) return pos;
  }
  throw new WireError(`${shortPath(path)}: varint longer than 10 bytes`);
}

/** A varint known to fit 32 bits of length or tag (longer ones are refused: no OTLP length or tag needs more). */
function readVarint32(buf: Uint8Array, pos: number, end: number, path: string): [value: number, next: number] {
  let value = 0;
  for (let shift = 0; shift < 35; shift += 7) {
    if (pos >= end) throw new WireError(`${shortPath(path)}: truncated varint`);
    const b = buf[pos++]!;
    value += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) return [value, pos];
  }
  throw new WireError(`${shortPath(path)}: length or tag varint out of range`);
}

/** One field of a message: its number, its rule (when known), and where its payload lies. */
export interface WireField {
  id: number;
  rule: FieldRule | undefined;
  path: string;
  /** For length-delimited fields the payload without its length prefix. */
  start: number;
  end: number;
  wire: number;
}

/**
 * Walks the fields of a message one level deep, checking that every known
 * field has its declared wire type and that every length stays inside the
 * message; calls `visit` for each field.
 */
function scanFields(type: Type, buf: Uint8Array, start: number, end: number, path: string, visit: (field: WireField) => void): void {
  const rules = rulesOf(type);
  const here = path || type.name;
  let pos = start;
  while (pos < end) {
    let tag: number;
    [tag, pos] = readVarint32(buf, pos, end, here);
    const id = Math.floor(tag / 8);
    const wire = tag & 7;
    if (id === 0) throw new WireError(`${shortPath(here)}: field number 0 is invalid`);
    const rule = rules.get(id);
    const fieldPath = rule ? (path ? `${path}.${rule.name}` : rule.name) : `${here}.#${id}`;
    if (rule && wire !== rule.wire && !(rule.packable && wire === WIRE_LEN)) {
      throw new WireError(`${shortPath(fieldPath)}: wrong wire type ${wire} (expected ${rule.wire})`);
    }
    let fieldStart = pos;
    switch (wire) {
      case WIRE_VARINT:
        pos = skipVarint(buf, pos, end, fieldPath);
        break;
      case WIRE_I64:
        pos += 8;
        break;
      case WIRE_I32:
        pos += 4;
        break;
      case WIRE_LEN: {
        let length: number;
        [length, fieldStart] = readVarint32(buf, pos, end, fieldPath);
        pos = fieldStart + length;
        break;
      }
      default:
        // Groups (3, 4) are proto2-only and 6, 7 do not exist; nothing in OTLP uses them.
        throw new WireError(`${shortPath(fieldPath)}: unsupported wire type ${wire}`);
    }
    if (pos > end) throw new WireError(`${shortPath(fieldPath)}: runs past the end of its message`);
    visit({ id, rule, path: fieldPath, start: fieldStart, end: pos, wire });
  }
}

/**
 * Checks `buf[start, end)` as a `type` message, sub-messages included: wire
 * types, lengths, unknown fields well-formed (they are skipped, as proto3
 * requires), and AnyValues nested at most `maxAnyValueDepth` deep. Throws
 * WireError naming the first problem.
 */
export function checkMessage(
  type: Type,
  buf: Uint8Array,
  start: number,
  end: number,
  path: string,
  maxAnyValueDepth: number,
  anyDepth = 0,
  budget: ValueBudget = { left: Infinity, limit: Infinity },
): void {
  if (type.name === ANY_VALUE) {
    if (++anyDepth > maxAnyValueDepth) throw new WireError(`${shortPath(path)}: attribute value nested deeper than ${maxAnyValueDepth} levels`);
    if (--budget.left < 0) throw new WireError(`${shortPath(path)}: more than ${budget.limit} attribute values in one span`);
  }
  scanFields(type, buf, start, end, path, (field) => {
    if (field.wire === WIRE_LEN && field.rule?.message) checkMessage(field.rule.message, buf, field.start, field.end, field.path, maxAnyValueDepth, anyDepth, budget);
  });
}

/** The fields of a message one level deep (sub-messages not entered), wire types checked. */
export function topFields(type: Type, buf: Uint8Array, start: number, end: number, path: string): WireField[] {
  const fields: WireField[] = [];
  scanFields(type, buf, start, end, path, (field) => fields.push(field));
  return fields;
}
