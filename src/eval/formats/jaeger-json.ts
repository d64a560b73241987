import type { Attributes, AttributeValue } from '@opentelemetry/api';
import { SpanKind } from '@opentelemetry/api';
import { at, FormatError, isArray, isObject, isString, lineOf, need } from './input.js';
import { spansToRuns, type TraceSpan } from './spans.js';
import type { FormatReader } from './types.js';

/** Jaeger's `span.kind` tag (written from the OTLP span kind) back to the API's SpanKind. */
const KINDS: Record<string, SpanKind> = {
  client: SpanKind.CLIENT,
  server: SpanKind.SERVER,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
  internal: SpanKind.INTERNAL,
};

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

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

function readSpan(where: string | undefined, path: string, raw: unknown): TraceSpan {
  if (!isObject(raw)) throw new FormatError(where, path, 'must be a Jaeger span object');
  const traceId = need(where, at(path, 'traceID'), raw.traceID, isString, 'must be a hex trace id');
  const spanId = need(where, at(path, 'spanID'), raw.spanID, isString, 'must be a hex span id');
  const name = need(where, at(path, 'operationName'), raw.operationName, isString, 'must be a string');
  const startUs = need(where, at(path, 'startTime'), raw.startTime, isNumber, 'must be microseconds since the epoch');
  const durationUs = need(where, at(path, 'duration'), raw.duration, isNumber, 'must be microseconds');
  const attributes = tags(where, at(path, 'tags'), raw.tags);
  const refs = raw.references === undefined ? [] : need(where, at(path, 'references'), raw.references, isArray, 'must be an array');
  const parent = refs.find((r): r is Record<string, unknown> => isObject(r) && r.refType === 'CHILD_OF' && isString(r.spanID));
  const parentSpanId = parent ? (parent.spanID as string) : isString(raw.parentSpanID) && raw.parentSpanID !== '' ? raw.parentSpanID : undefined;
  const kindTag = attributes['span.kind'];
  const status = attributes['otel.status_code'];
  const description = attributes['otel.status_description'];
  return {
    traceId,
    spanId,
    parentSpanId,
    name,
    kind: typeof kindTag === 'string' ? (KINDS[kindTag] ?? SpanKind.INTERNAL) : SpanKind.INTERNAL,
    attributes,
    startMs: startUs / 1e3,
    endMs: (startUs + durationUs) / 1e3,
    failed: status === 'ERROR' || attributes.error === true || attributes.error === 'true',
    statusMessage: typeof description === 'string' ? description : undefined,
  };
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
    const spans: TraceSpan[] = [];
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
