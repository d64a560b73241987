import type { Type } from 'protobufjs';
import { ExportTraceServiceRequestType, ExportTraceServiceResponseType, RpcStatusType } from './otlp-schema.js';
import { OtlpDecodeError } from './otlp-model.js';
import type { OtlpTraceRequest, OtlpTraceResponse, RpcStatus } from './otlp-model.js';

const TO_OBJECT = { longs: String, enums: Number } as const;

function decode<T>(type: Type, body: Uint8Array): T {
  try {
    // A Buffer input makes protobufjs return bytes fields as Buffers, the same type the JSON codec produces.
    const input = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    return type.toObject(type.decode(input), TO_OBJECT) as T;
  } catch (err) {
    // protobufjs reports truncation as RangeError("index out of range") and bad wire types as Error.
    const detail = err instanceof Error ? err.message : String(err);
    throw new OtlpDecodeError(`invalid protobuf ${type.name}: ${detail}`);
  }
}

function encode(type: Type, value: object): Uint8Array {
  return type.encode(type.fromObject(value)).finish();
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
