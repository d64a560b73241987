import type { Attributes, AttributeValue, HrTime, SpanContext, SpanKind, SpanStatus, TimeInput } from '@opentelemetry/api';

/**
 * The part of a span the detection hosts read and write. An SDK `Span` (in
 * `onStart`/`onEnding`) satisfies it, and so does the collector's view of a
 * decoded OTLP span, which is how one processor serves both hosts.
 */
export interface SpanShape {
  readonly name: string;
  readonly kind: SpanKind;
  readonly attributes: Attributes;
  readonly status: SpanStatus;
  readonly startTime: HrTime;
  readonly endTime: HrTime;
  /** SDK 2.x/3.x name; absent on root spans. */
  readonly parentSpanContext?: SpanContext | undefined;
  /** SDK 1.x name, read when `parentSpanContext` is missing. */
  readonly parentSpanId?: string | undefined;
  /** SDK spans (2.x/3.x) say whether they ended. */
  readonly ended?: boolean;
  spanContext(): SpanContext;
  setAttribute(key: string, value: AttributeValue): unknown;
  addEvent(name: string, attributes?: Attributes, startTime?: TimeInput): unknown;
}
