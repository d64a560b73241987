/**
 * OTLP trace data as the collector holds it in memory: the protobuf messages
 * in plain-object form (protobufjs `toObject` with `longs: String`,
 * `enums: Number`). Both codecs produce and consume exactly this shape, so a
 * span decoded from JSON can be forwarded as protobuf and the other way round.
 * 64-bit integers stay decimal strings so nanosecond timestamps keep every digit.
 */
export interface OtlpAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string;
  doubleValue?: number;
  arrayValue?: { values?: OtlpAnyValue[] };
  kvlistValue?: { values?: OtlpKeyValue[] };
  bytesValue?: Uint8Array;
}

export interface OtlpKeyValue {
  key: string;
  value?: OtlpAnyValue;
}

export interface OtlpEntityRef {
  schemaUrl?: string;
  type?: string;
  idKeys?: string[];
  descriptionKeys?: string[];
}

export interface OtlpResource {
  attributes?: OtlpKeyValue[];
  droppedAttributesCount?: number;
  entityRefs?: OtlpEntityRef[];
}

export interface OtlpInstrumentationScope {
  name?: string;
  version?: string;
  attributes?: OtlpKeyValue[];
  droppedAttributesCount?: number;
}

export interface OtlpEvent {
  timeUnixNano?: string;
  name?: string;
  attributes?: OtlpKeyValue[];
  droppedAttributesCount?: number;
}

export interface OtlpLink {
  traceId?: Uint8Array;
  spanId?: Uint8Array;
  traceState?: string;
  attributes?: OtlpKeyValue[];
  droppedAttributesCount?: number;
  flags?: number;
}

export interface OtlpStatus {
  message?: string;
  code?: number;
}

export interface OtlpSpan {
  traceId?: Uint8Array;
  spanId?: Uint8Array;
  traceState?: string;
  parentSpanId?: Uint8Array;
  flags?: number;
  name?: string;
  kind?: number;
  startTimeUnixNano?: string;
  endTimeUnixNano?: string;
  attributes?: OtlpKeyValue[];
  droppedAttributesCount?: number;
  events?: OtlpEvent[];
  droppedEventsCount?: number;
  links?: OtlpLink[];
  droppedLinksCount?: number;
  status?: OtlpStatus;
}

export interface OtlpScopeSpans {
  scope?: OtlpInstrumentationScope;
  spans?: OtlpSpan[];
  schemaUrl?: string;
}

export interface OtlpResourceSpans {
  resource?: OtlpResource;
  scopeSpans?: OtlpScopeSpans[];
  schemaUrl?: string;
}

export interface OtlpTraceRequest {
  resourceSpans?: OtlpResourceSpans[];
}

export interface OtlpPartialSuccess {
  rejectedSpans?: string;
  errorMessage?: string;
}

export interface OtlpTraceResponse {
  partialSuccess?: OtlpPartialSuccess;
}

/** google.rpc.Status, the body of OTLP/HTTP error responses. */
export interface RpcStatus {
  code: number;
  message: string;
}

/** gRPC code INVALID_ARGUMENT, used for malformed request bodies. */
export const RPC_INVALID_ARGUMENT = 3;
/** gRPC code UNAVAILABLE, used when the collector sheds load or drains. */
export const RPC_UNAVAILABLE = 14;
export const RPC_UNAUTHENTICATED = 16;
export const RPC_RESOURCE_EXHAUSTED = 8;
export const RPC_UNKNOWN = 2;
export const RPC_UNIMPLEMENTED = 12;

/** A body that is not a valid OTLP message; the message names the offending field. */
export class OtlpDecodeError extends Error {
  override readonly name = 'OtlpDecodeError';
}

/** A field path for an error message, its middle elided when deep nesting made it long. */
export function shortPath(path: string): string {
  return path.length <= 160 ? path : `${path.slice(0, 60)}…${path.slice(-90)}`;
}

/** Spans refused one by one, for the `partialSuccess` answer; the messages are capped in number. */
export interface SpanRejections {
  rejectedSpans: number;
  rejectionMessages: string[];
}

const MAX_REJECTION_MESSAGES = 5;

export function rejectSpan(into: SpanRejections, path: string, problem: string): void {
  into.rejectedSpans++;
  if (into.rejectionMessages.length < MAX_REJECTION_MESSAGES) into.rejectionMessages.push(`${path}: ${problem}`);
}

/**
 * A request as decoded span by span: a malformed or too deeply nested span is
 * refused alone (partial success) instead of failing the whole export.
 */
export interface DecodedTraceRequest extends SpanRejections {
  request: OtlpTraceRequest;
  /** Original wire bytes of the decoded resources, scopes and spans (protobuf requests only), forwarded as they came. */
  wire: WeakMap<object, Uint8Array>;
}

/** Why a span could not be decoded, from whatever the decoder threw (a stack overflow included). */
export function decodeProblem(err: unknown): string {
  if (err instanceof RangeError && /call stack/i.test(err.message)) return 'nested too deeply to decode';
  return err instanceof Error ? err.message : String(err);
}

export function countSpans(request: OtlpTraceRequest): number {
  let n = 0;
  for (const rs of request.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) n += ss.spans?.length ?? 0;
  return n;
}
