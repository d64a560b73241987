import type { Type } from 'protobufjs';
import type { OtlpAnyValue, OtlpEvent, OtlpKeyValue } from './otlp-model.js';
import { EventType, KeyValueType } from './otlp-schema.js';
import type { ProtoWriter } from './proto-writer.js';

/**
 * Writes the KeyValues and Events the detection engine appends to a span
 * (strings, numbers, booleans, flat arrays, as `attributeToAnyValue` makes
 * them) straight into a ProtoWriter, with the bytes protobufjs's
 * `fromObject` + `encode` would give. Anything else (maps, bytes, negative or
 * non-canonical integers, deeper nesting, strings with lone surrogates, which
 * protobufjs writes its own way) is handed to protobufjs unchanged.
 */

const TWO_32 = 4294967296;
const CANONICAL_UINT = /^(?:0|[1-9]\d{0,15})$/;
const DIGITS = /^\d{1,20}$/;
const MAX_U64 = (1n << 64n) - 1n;

/** protobufjs's encoding of `value` as a `type` message. */
export const encodeMessage = (type: Type, value: object): Uint8Array => type.encode(type.fromObject(value)).finish();

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

// Node ≥ 20 has String.prototype.isWellFormed (ES2024; the project's lib is ES2023).
const wellFormed = (s: unknown): s is string => typeof s === 'string' && (s as string & { isWellFormed(): boolean }).isWellFormed();

/** A non-negative integer in canonical decimal below 2^53, else undefined. */
function safeUint(text: unknown): number | undefined {
  if (typeof text !== 'string' || !CANONICAL_UINT.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** One AnyValue member set (or none), of a kind written here; arrays one level deep. */
function plainAnyValue(value: unknown, nested: boolean): boolean {
  if (!isObject(value)) return false;
  const v = value as OtlpAnyValue;
  let members = 0;
  if (v.stringValue != null) {
    if (!wellFormed(v.stringValue)) return false;
    members++;
  }
  if (v.boolValue != null) {
    if (typeof v.boolValue !== 'boolean') return false;
    members++;
  }
  if (v.intValue != null) {
    if (safeUint(v.intValue) === undefined) return false;
    members++;
  }
  if (v.doubleValue != null) {
    if (typeof v.doubleValue !== 'number') return false;
    members++;
  }
  if (v.arrayValue != null) {
    if (nested || !isObject(v.arrayValue)) return false;
    const items: unknown = v.arrayValue.values;
    if (items !== undefined && !(Array.isArray(items) && items.every((item) => plainAnyValue(item, true)))) return false;
    members++;
  }
  if (v.kvlistValue != null || v.bytesValue != null) return false;
  return members <= 1;
}

function plainKeyValue(kv: unknown): kv is OtlpKeyValue {
  return isObject(kv) && wellFormed(kv.key) && (kv.value == null || plainAnyValue(kv.value, false));
}

function plainEvent(event: unknown): event is OtlpEvent {
  if (!isObject(event) || event.droppedAttributesCount != null) return false;
  if (event.name != null && !wellFormed(event.name)) return false;
  const time = event.timeUnixNano;
  if (time != null && !(typeof time === 'string' && DIGITS.test(time) && BigInt(time) <= MAX_U64)) return false;
  const attributes = event.attributes;
  return attributes === undefined || (Array.isArray(attributes) && attributes.every(plainKeyValue));
}

function writeAnyValue(w: ProtoWriter, field: number, v: OtlpAnyValue): void {
  w.open(field);
  if (v.stringValue != null) w.stringField(1, v.stringValue);
  else if (v.boolValue != null) w.varintField(2, v.boolValue ? 1 : 0);
  else if (v.intValue != null) {
    const n = safeUint(v.intValue)!;
    w.varintField(3, n % TWO_32, Math.floor(n / TWO_32));
  } else if (v.doubleValue != null) w.doubleField(4, v.doubleValue);
  else if (v.arrayValue != null) {
    w.open(5);
    for (const item of v.arrayValue.values ?? []) writeAnyValue(w, 1, item);
    w.close();
  }
  w.close();
}

function writePlainKeyValue(w: ProtoWriter, field: number, kv: OtlpKeyValue): void {
  w.open(field);
  if (kv.key !== '') w.stringField(1, kv.key);
  if (kv.value != null) writeAnyValue(w, 2, kv.value);
  w.close();
}

/** `kv` as length-delimited field `field` of the current message. */
export function writeKeyValue(w: ProtoWriter, field: number, kv: OtlpKeyValue): void {
  if (plainKeyValue(kv)) writePlainKeyValue(w, field, kv);
  else w.bytesField(field, encodeMessage(KeyValueType, kv));
}

/** `event` as length-delimited field `field` of the current message. */
export function writeEvent(w: ProtoWriter, field: number, event: OtlpEvent): void {
  if (!plainEvent(event)) {
    w.bytesField(field, encodeMessage(EventType, event));
    return;
  }
  w.open(field);
  if (event.timeUnixNano != null && BigInt(event.timeUnixNano) !== 0n) {
    const nanos = BigInt(event.timeUnixNano);
    w.fixed64Field(1, Number(nanos & 0xffffffffn), Number(nanos >> 32n));
  }
  if (event.name) w.stringField(2, event.name);
  for (const kv of event.attributes ?? []) writePlainKeyValue(w, 3, kv);
  w.close();
}
