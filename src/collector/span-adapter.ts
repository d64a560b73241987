import { SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import type { Attributes, AttributeValue, HrTime, SpanContext, SpanStatus, TimeInput } from '@opentelemetry/api';
import { isTimeInput, timeInputToHrTime, TraceState } from '@opentelemetry/core';
import type { SpanShape } from '../span-shape.js';
import type { KeyValueCap } from './key-caps.js';
import type { SpanEdit } from './otlp-encode.js';
import { attributesToKeyValues, attributeToAnyValue, keyValuesToAttributes } from './attributes.js';
import type { OtlpEvent, OtlpInstrumentationScope, OtlpResource, OtlpSpan } from './otlp-model.js';

/** OTLP `Span.SpanKind` (0 = unspecified, read as INTERNAL as the spec allows) to the API enum. */
const OTLP_KIND_TO_API: Record<number, SpanKind> = {
  0: SpanKind.INTERNAL,
  1: SpanKind.INTERNAL,
  2: SpanKind.SERVER,
  3: SpanKind.CLIENT,
  4: SpanKind.PRODUCER,
  5: SpanKind.CONSUMER,
};

const NANOS_PER_SECOND = 1_000_000_000n;

/** A decimal nanosecond count (as both codecs give them: unsigned, canonical) as [seconds, nanoseconds]. */
export function nanosToHrTime(nanos: string | undefined): HrTime {
  if (nanos === undefined || nanos.length <= 9) return [0, Number(nanos ?? '0')];
  // Digit by digit: no slices, no string-to-number conversions (two timestamps a span). Exact for a uint64's
  // 20 digits at most: the seconds stay below 2^53. Anything else is read as before.
  if (nanos.length > 20) return sliceToHrTime(nanos);
  const split = nanos.length - 9;
  let seconds = 0;
  let fraction = 0;
  for (let i = 0; i < nanos.length; i++) {
    const digit = nanos.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return sliceToHrTime(nanos);
    if (i < split) seconds = seconds * 10 + digit;
    else fraction = fraction * 10 + digit;
  }
  return [seconds, fraction];
}

function sliceToHrTime(nanos: string): HrTime {
  return [Number(nanos.slice(0, -9)), Number(nanos.slice(-9))];
}

/** end - start, never negative. */
function hrDuration(start: HrTime, end: HrTime): HrTime {
  let seconds = end[0] - start[0];
  let nanos = end[1] - start[1];
  if (nanos < 0) {
    seconds -= 1;
    nanos += 1_000_000_000;
  }
  return seconds < 0 ? [0, 0] : [seconds, nanos];
}

export function hrTimeToNanos(time: HrTime): string {
  return (BigInt(time[0]) * NANOS_PER_SECOND + BigInt(time[1])).toString();
}

// Decoded ids are Buffers already (views of the request body): no copy to print them.
const hex = (bytes: Uint8Array | undefined): string =>
  bytes === undefined ? '' : (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)).toString('hex');

/**
 * A decoded OTLP span seen through `SpanShape`, so the same
 * `LoopGuardSpanProcessor` that runs inside agents can run in the collector.
 * Reads come from the record; `setAttribute` and `addEvent` write into it, so
 * whatever the processor annotates is what gets forwarded.
 */
export class OtlpSpanAdapter implements SpanShape {
  readonly name: string;
  readonly kind: SpanKind;
  readonly status: SpanStatus;
  readonly startTime: HrTime;
  readonly endTime: HrTime;
  readonly parentSpanContext: SpanContext | undefined;
  readonly parentSpanId: string | undefined;
  readonly ended = true;
  private readonly context: SpanContext;
  private readonly attributeCache: Attributes;
  /** List lengths as received: what lies beyond them was appended here. */
  private readonly receivedAttributes: number;
  private readonly receivedEvents: number;
  /** A received attribute was changed in place, so the span cannot be forwarded as its bytes plus appended fields. */
  private rewritten = false;
  // Built on first read: detection reads neither, and the collector makes an adapter per span.
  private resourceView: { readonly attributes: Attributes } | undefined;
  private scopeView: { readonly name: string; readonly version?: string | undefined } | undefined;

  constructor(
    private readonly record: OtlpSpan,
    private readonly otlpResource?: OtlpResource,
    private readonly otlpScope?: OtlpInstrumentationScope,
    keyCap?: KeyValueCap,
  ) {
    this.name = record.name ?? '';
    this.kind = OTLP_KIND_TO_API[record.kind ?? 0] ?? SpanKind.INTERNAL;
    const code = record.status?.code;
    const message = record.status?.message;
    const apiCode = code === 1 ? SpanStatusCode.OK : code === 2 ? SpanStatusCode.ERROR : SpanStatusCode.UNSET;
    this.status = message ? { code: apiCode, message } : { code: apiCode };
    this.startTime = nanosToHrTime(record.startTimeUnixNano);
    this.endTime = nanosToHrTime(record.endTimeUnixNano ?? record.startTimeUnixNano);
    this.context = {
      traceId: hex(record.traceId),
      spanId: hex(record.spanId),
      // The low 8 bits of OTLP span flags are the W3C trace flags.
      traceFlags: ((record.flags ?? TraceFlags.SAMPLED) & 0xff) as TraceFlags,
      isRemote: false,
      ...(record.traceState ? { traceState: new TraceState(record.traceState) } : {}),
    };
    const parent = hex(record.parentSpanId);
    this.parentSpanId = parent || undefined;
    this.parentSpanContext = parent
      ? { traceId: this.context.traceId, spanId: parent, traceFlags: this.context.traceFlags, isRemote: false }
      : undefined;
    this.attributeCache = keyValuesToAttributes(record.attributes);
    this.receivedAttributes = record.attributes?.length ?? 0;
    this.receivedEvents = record.events?.length ?? 0;
    keyCap?.apply(this.attributeCache);
  }

  get duration(): HrTime {
    return hrDuration(this.startTime, this.endTime);
  }

  /** Mirrors the SDK's `ReadableSpan.resource`, for a processor that reads it in `onEnd`. */
  get resource(): { readonly attributes: Attributes } {
    return (this.resourceView ??= { attributes: keyValuesToAttributes(this.otlpResource?.attributes) });
  }

  /** Mirrors the SDK's `ReadableSpan.instrumentationScope`. */
  get instrumentationScope(): { readonly name: string; readonly version?: string | undefined } {
    return (this.scopeView ??= { name: this.otlpScope?.name ?? '', version: this.otlpScope?.version || undefined });
  }

  /** How the span changed since it was received (see otlp-encode). */
  edit(): SpanEdit {
    return this.rewritten ? 'rewritten' : { attributes: this.receivedAttributes, events: this.receivedEvents };
  }

  get attributes(): Attributes {
    return this.attributeCache;
  }

  get events(): { name: string; time: HrTime; attributes: Attributes }[] {
    return (this.record.events ?? []).map((e) => ({
      name: e.name ?? '',
      time: nanosToHrTime(e.timeUnixNano),
      attributes: keyValuesToAttributes(e.attributes),
    }));
  }

  spanContext(): SpanContext {
    return this.context;
  }

  setAttribute(key: string, value: AttributeValue): this {
    if (value === undefined || value === null) return this;
    this.attributeCache[key] = value;
    const list = (this.record.attributes ??= []);
    // The first entry with the key, as findIndex finds it, without a closure per call: detection sets several attributes on every span.
    let index = 0;
    while (index < list.length && list[index]!.key !== key) index++;
    if (index === list.length) index = -1;
    if (index < 0) list.push({ key, value: attributeToAnyValue(value) });
    else {
      list[index]!.value = attributeToAnyValue(value);
      if (index < this.receivedAttributes) this.rewritten = true;
    }
    return this;
  }

  setAttributes(attributes: Attributes): this {
    const keys = Object.keys(attributes);
    for (let i = 0; i < keys.length; i++) {
      const v = attributes[keys[i]!];
      if (v !== undefined) this.setAttribute(keys[i]!, v);
    }
    return this;
  }

  /**
   * Without an explicit time the event is stamped with the span's end time, not
   * "now": the span may have ended long before it reached the collector, and an
   * event outside its span's bounds renders badly in trace viewers.
   */
  addEvent(name: string, attributesOrTime?: Attributes | TimeInput, startTime?: TimeInput): this {
    let attributes: Attributes | undefined;
    let time = startTime;
    if (isTimeInput(attributesOrTime)) time = attributesOrTime;
    else attributes = attributesOrTime;
    const event: OtlpEvent = {
      name,
      timeUnixNano: hrTimeToNanos(time === undefined ? this.endTime : timeInputToHrTime(time)),
    };
    const kvs = attributesToKeyValues(attributes);
    if (kvs.length > 0) event.attributes = kvs;
    (this.record.events ??= []).push(event);
    return this;
  }
}
