import type { Attributes, AttributeValue } from '@opentelemetry/api';
import type { OtlpAnyValue, OtlpKeyValue } from './otlp-model.js';

/**
 * Conversions between OTLP `AnyValue`s and the API's attribute values, which is
 * all the detection engine understands. Maps (`kvlistValue`) become their JSON
 * text: instrumentations that record tool arguments as a structured value then
 * hash exactly like those that record them as a JSON string. Bytes become base64.
 */
export function anyValueToAttribute(value: OtlpAnyValue | undefined): AttributeValue | undefined {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.bytesValue !== undefined) return Buffer.from(value.bytesValue).toString('base64');
  if (value.arrayValue !== undefined) {
    const items = (value.arrayValue.values ?? []).map(anyValueToPlain);
    if (items.every((i) => typeof i === 'string' || i === null)) return items as (string | null)[];
    if (items.every((i) => typeof i === 'number' || i === null)) return items as (number | null)[];
    if (items.every((i) => typeof i === 'boolean' || i === null)) return items as (boolean | null)[];
    return items.map((i) => (typeof i === 'string' ? i : JSON.stringify(i)));
  }
  if (value.kvlistValue !== undefined) return JSON.stringify(anyValueToPlain(value));
  return undefined;
}

/** An AnyValue as plain JSON data (nested arrays and maps kept as such). */
export function anyValueToPlain(value: OtlpAnyValue | undefined): unknown {
  if (!value) return null;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(anyValueToPlain);
  if (value.kvlistValue !== undefined) {
    const out: Record<string, unknown> = {};
    for (const kv of value.kvlistValue.values ?? []) out[kv.key] = anyValueToPlain(kv.value);
    return out;
  }
  return anyValueToAttribute(value) ?? null;
}

export function attributeToAnyValue(value: AttributeValue): OtlpAnyValue {
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'number') {
    return Number.isSafeInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  }
  return {
    arrayValue: { values: value.map((v) => (v === null || v === undefined ? {} : attributeToAnyValue(v))) },
  };
}

export function keyValuesToAttributes(list: readonly OtlpKeyValue[] | undefined): Attributes {
  const out: Attributes = {};
  for (const kv of list ?? []) {
    const v = anyValueToAttribute(kv.value);
    if (v !== undefined) out[kv.key] = v;
  }
  return out;
}

export function attributesToKeyValues(attributes: Attributes | undefined): OtlpKeyValue[] {
  const out: OtlpKeyValue[] = [];
  for (const [key, value] of Object.entries(attributes ?? {})) {
    if (value !== undefined && value !== null) out.push({ key, value: attributeToAnyValue(value) });
  }
  return out;
}
