import type { Type } from 'protobufjs';
import {
  ExportTraceServiceRequestType,
  ExportTraceServiceResponseType,
  InstrumentationScopeType,
  ResourceSpansType,
  ResourceType,
  RpcStatusType,
  ScopeSpansType,
} from './otlp-schema.js';
import { decodeProblem, OtlpDecodeError, rejectSpan } from './otlp-model.js';
import type { DecodedTraceRequest, OtlpResourceSpans, OtlpScopeSpans, OtlpSpan, OtlpTraceRequest, OtlpTraceResponse, RpcStatus } from './otlp-model.js';
import { checkMessage, topFields, WireError } from './otlp-wire.js';
import type { SpanLimits } from './otlp-wire.js';
import { decodeSpanWire } from './span-wire.js';
import { TimeSlicer } from './time-slicer.js';
import type { WireField } from './otlp-wire.js';

const TO_OBJECT = { longs: String, enums: Number } as const;

// A Buffer input makes protobufjs return bytes fields as Buffers, the same type the JSON codec produces.
const asBuffer = (body: Uint8Array): Buffer => (Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength));

function decode<T>(type: Type, body: Uint8Array): T {
  try {
    return type.toObject(type.decode(asBuffer(body)), TO_OBJECT) as T;
  } catch (err) {
    // protobufjs reports truncation as RangeError("index out of range") and bad wire types as Error.
    const detail = err instanceof Error ? err.message : String(err);
    throw new OtlpDecodeError(`invalid protobuf ${type.name}: ${detail}`);
  }
}

function encode(type: Type, value: object): Uint8Array {
  return type.encode(type.fromObject(value)).finish();
}

/** A checked sub-message, decoded; several occurrences of a singular field merge, as protobuf defines it (by concatenation). */
function decodeChecked<T extends object>(type: Type, buf: Buffer, fields: WireField[], maxAnyValueDepth: number, wire: WeakMap<object, Uint8Array>): T {
  for (const f of fields) checkMessage(type, buf, f.start, f.end, fields[0]!.path, maxAnyValueDepth);
  const bytes = fields.length === 1 ? buf.subarray(fields[0]!.start, fields[0]!.end) : Buffer.concat(fields.map((f) => buf.subarray(f.start, f.end)));
  const value = type.toObject(type.decode(bytes), TO_OBJECT) as T;
  wire.set(value, bytes);
  return value;
}

const lastString = (buf: Buffer, fields: WireField[]): string | undefined => {
  const f = fields.at(-1);
  return f === undefined || f.end === f.start ? undefined : buf.toString('utf8', f.start, f.end);
};

function fieldsById(fields: WireField[], id: number): WireField[] {
  return fields.filter((f) => f.id === id);
}

/**
 * Decodes an OTLP/protobuf ExportTraceServiceRequest span by span. The request,
 * resource and scope levels must be well-formed (else OtlpDecodeError: the
 * whole request is refused); a span with malformed wire data or attribute
 * values nested deeper than `maxAnyValueDepth` is refused alone.
 */
export async function decodeTraceRequestProtoPerSpan(body: Uint8Array, limits: SpanLimits): Promise<DecodedTraceRequest> {
  const { maxAnyValueDepth } = limits;
  const slicer = new TimeSlicer(10, 8);
  const buf = asBuffer(body);
  const out: DecodedTraceRequest = { request: {}, wire: new WeakMap(), rejectedSpans: 0, rejectionMessages: [] };
  try {
    const resourceSpans: OtlpResourceSpans[] = [];
    for (const [ri, rsField] of fieldsById(topFields(ExportTraceServiceRequestType, buf, 0, buf.length, ''), 1).entries()) {
      const rsPath = `resourceSpans[${ri}]`;
      const rsFields = topFields(ResourceSpansType, buf, rsField.start, rsField.end, rsPath);
      const rs: OtlpResourceSpans = {};
      const resource = fieldsById(rsFields, 1);
      if (resource.length > 0) rs.resource = decodeChecked(ResourceType, buf, resource, maxAnyValueDepth, out.wire);
      const schemaUrl = lastString(buf, fieldsById(rsFields, 3));
      if (schemaUrl !== undefined) rs.schemaUrl = schemaUrl;
      const scopeSpans: OtlpScopeSpans[] = [];
      for (const [si, ssField] of fieldsById(rsFields, 2).entries()) {
        const ssPath = `${rsPath}.scopeSpans[${si}]`;
        const ssFields = topFields(ScopeSpansType, buf, ssField.start, ssField.end, ssPath);
        const ss: OtlpScopeSpans = {};
        const scope = fieldsById(ssFields, 1);
        if (scope.length > 0) ss.scope = decodeChecked(InstrumentationScopeType, buf, scope, maxAnyValueDepth, out.wire);
        const ssSchemaUrl = lastString(buf, fieldsById(ssFields, 3));
        if (ssSchemaUrl !== undefined) ss.schemaUrl = ssSchemaUrl;
        const spans: OtlpSpan[] = [];
        for (const [pi, spanField] of fieldsById(ssFields, 2).entries()) {
          const spanPath = `${ssPath}.spans[${pi}]`;
          try {
            if (slicer.due()) await slicer.pause();
            const span = decodeSpanWire(buf, spanField.start, spanField.end, spanPath, limits);
            out.wire.set(span, buf.subarray(spanField.start, spanField.end));
            spans.push(span);
          } catch (err) {
            // WireError messages start with the span's own path; the rejection names it once.
            const problem = err instanceof WireError ? err.message.slice(spanPath.length).replace(/^[.:]\s*/, '') : decodeProblem(err);
            rejectSpan(out, spanPath, problem);
          }
        }
        if (spans.length > 0) ss.spans = spans;
        scopeSpans.push(ss);
      }
      if (scopeSpans.length > 0) rs.scopeSpans = scopeSpans;
      resourceSpans.push(rs);
    }
    if (resourceSpans.length > 0) out.request.resourceSpans = resourceSpans;
  } catch (err) {
    throw new OtlpDecodeError(`invalid protobuf ExportTraceServiceRequest: ${decodeProblem(err)}`);
  }
  return out;
}

export const decodeTraceRequestProto = (body: Uint8Array): OtlpTraceRequest => decode(ExportTraceServiceRequestType, body);
export const encodeTraceRequestProto = (request: OtlpTraceRequest): Uint8Array => encode(ExportTraceServiceRequestType, request);
export const decodeTraceResponseProto = (body: Uint8Array): OtlpTraceResponse => decode(ExportTraceServiceResponseType, body);
export const encodeTraceResponseProto = (response: OtlpTraceResponse): Uint8Array => encode(ExportTraceServiceResponseType, response);
export const decodeRpcStatusProto = (body: Uint8Array): RpcStatus => {
  const s = decode<Partial<RpcStatus>>(RpcStatusType, body);
  return { code: s.code ?? 0, message: s.message ?? '' };
};
export const encodeRpcStatusProto = (status: RpcStatus): Uint8Array => encode(RpcStatusType, status);
