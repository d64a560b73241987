import type { Attributes, AttributeValue } from '@opentelemetry/api';
import { attributesToKeyValues } from '../../collector/attributes.js';
import { OtlpSpanAdapter } from '../../collector/span-adapter.js';
import { at, FormatError, isArray, isObject, isString, lineOf, need } from './input.js';
import { spansToRuns } from './spans.js';
import type { FormatReader } from './types.js';

/** Jaeger's `span.kind` tag back to the OTLP span kind it was written from. */
const OTLP_KINDS: Record<string, number> = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 };
const OTLP_STATUS_ERROR = 2;
const HEX = /^[0-9a-fA-F]+$/;

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isHex = (v: unknown): v is string => typeof v === 'string' && HEX.test(v);
/** Jaeger drops leading zeros of ids in some versions; OTLP ids are fixed-width. */
const idBytes = (hex: string, bytes: number): Uint8Array => Buffer.from(hex.padStart(bytes * 2, '0'), 'hex');
const nanos = (micros: number): string => (BigInt(Math.round(micros)) * 1000n).toString();

function tags(where: string | undefined, path: string, raw: unknown): Attributes {
  const out: Attributes = {};
  if (raw === undefined) return out;
  const list = need(where, path, raw, isArray, 'must be an array of {key, type, value} tags');
  list.forEach((tag, i) => {
    const p = at(path, i);
    if (!isObject(tag)) throw new FormatError(where, p, 'must be a {key, type, value} tag');
    const key = need(where, at(p, 'key'), tag.key, isString, 'must be a string');
    const value = tag.value;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new FormatError(where, at(p, 'value'), 'must be a string, number or boolean');
    }
    out[key] = value as AttributeValue;
  });
  return out;
}

/** One Jaeger span as the OTLP span it was translated from, so it is read through the collector's own span adapter. */
function readSpan(where: string | undefined, path: string, raw: unknown): OtlpSpanAdapter {
  if (!isObject(raw)) throw new FormatError(where, path, 'must be a Jaeger span object');
  const traceId = need(where, at(path, 'traceID'), raw.traceID, isHex, 'must be a hex trace id');
  const spanId = need(where, at(path, 'spanID'), raw.spanID, isHex, 'must be a hex span id');
  const name = need(where, at(path, 'operationName'), raw.operationName, isString, 'must be a string');
  const startUs = need(where, at(path, 'startTime'), raw.startTime, isNumber, 'must be microseconds since the epoch');
  const durationUs = need(where, at(path, 'duration'), raw.duration, isNumber, 'must be microseconds');
  const attributes = tags(where, at(path, 'tags'), raw.tags);
  const refs = raw.references === undefined ? [] : need(where, at(path, 'references'), raw.references, isArray, 'must be an array');
  const parent = refs.find((r): r is Record<string, unknown> => isObject(r) && r.refType === 'CHILD_OF' && isHex(r.spanID));
  const parentSpanId = parent ? (parent.spanID as string) : isHex(raw.parentSpanID) ? raw.parentSpanID : undefined;
  const { 'span.kind': kind, 'otel.status_code': status, 'otel.status_description': description, error, ...rest } = attributes;
  const failed = status === 'ERROR' || error === true || error === 'true';
  return new OtlpSpanAdapter({
    traceId: idBytes(traceId, 16),
    spanId: idBytes(spanId, 8),
    ...(parentSpanId === undefined ? {} : { parentSpanId: idBytes(parentSpanId, 8) }),
    name,
    kind: typeof kind === 'string' ? (OTLP_KINDS[kind] ?? 0) : 0,
    startTimeUnixNano: nanos(startUs),
    endTimeUnixNano: nanos(startUs + durationUs),
    attributes: attributesToKeyValues(rest),
    ...(failed ? { status: { code: OTLP_STATUS_ERROR, ...(typeof description === 'string' ? { message: description } : {}) } } : {}),
  });
}

/**
 * Jaeger JSON as its UI downloads and its query API returns it:
 * `{"data":[{"traceID", "spans":[...], "processes":{...}}]}`. Tags become
 * attributes (Jaeger keeps OTLP attribute names as tag keys), so the spans
 * read through the same dialect readers as OTLP ones.
 */
export const jaegerJsonReader: FormatReader = {
  name: 'jaeger-json',
  looksLike: 'Jaeger JSON ({"data":[{"traceID","spans":[...],"processes":{...}}]})',
  detect: (first) => isObject(first) && Array.isArray(first.data) && (first.data.length === 0 || (isObject(first.data[0]) && 'spans' in first.data[0])),
  read(input, options) {
    const spans: OtlpSpanAdapter[] = [];
    for (const v of input.values) {
      const where = lineOf(v);
      if (!isObject(v.value)) throw new FormatError(where, '(document)', 'must be a Jaeger JSON object with "data"');
      const traces = need(where, 'data', v.value.data, isArray, 'must be an array of traces');
      traces.forEach((trace, i) => {
        const path = at('data', i);
        if (!isObject(trace)) throw new FormatError(where, path, 'must be a trace object');
        const list = need(where, at(path, 'spans'), trace.spans, isArray, 'must be an array of spans');
        list.forEach((raw, j) => spans.push(readSpan(where, at(at(path, 'spans'), j), raw)));
      });
    }
    return spansToRuns(spans, options);
  },
};
