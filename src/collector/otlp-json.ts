import protobuf from 'protobufjs';
import type { Type } from 'protobufjs';
import { AnyValueType, ExportTraceServiceRequestType, ExportTraceServiceResponseType, HEX_BYTES_FIELDS, RpcStatusType, SpanType } from './otlp-schema.js';
import { decodeProblem, OtlpDecodeError, rejectSpan, shortPath } from './otlp-model.js';
import type { DecodedTraceRequest, OtlpTraceRequest, OtlpTraceResponse, RpcStatus, SpanRejections } from './otlp-model.js';
import type { SpanLimits } from './otlp-wire.js';

/**
 * OTLP/JSON ("JSON Protobuf Encoding" of the OTLP specification), driven by the
 * same protobuf schema as the binary codec: proto3 JSON mapping, except that
 * trace and span ids are hex strings, enums are integers (names accepted too),
 * and keys are lowerCamelCase (the original snake_case names are accepted too).
 * Unknown fields are ignored, as the specification requires of receivers.
 */

const INT64_TYPES = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);
const INT32_TYPES = new Set(['int32', 'uint32', 'sint32', 'fixed32', 'sfixed32']);
const INT64_JSON_KEYS = ['startTimeUnixNano', 'endTimeUnixNano', 'timeUnixNano', 'intValue', 'rejectedSpans'];

const snakeCase = (camel: string): string => camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * JSON.parse turns integer literals above 2^53 into lossy doubles, and OTLP
 * senders may write nanosecond timestamps as bare numbers. Quoting the long
 * literals of the int64 keys before parsing keeps every digit. The pattern only
 * matches a quoted key directly followed by a colon, which inside a JSON string
 * value would have escaped quotes, so string contents are never touched.
 */
const LONG_INT_LITERAL = new RegExp(
  `("(?:${INT64_JSON_KEYS.flatMap((k) => [k, snakeCase(k)]).join('|')})"\\s*:\\s*)(-?\\d{16,})(?=\\s*[,}\\]])`,
  'g',
);

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

function fail(path: string, expected: string, got: unknown): never {
  throw new OtlpDecodeError(`${shortPath(path) || 'body'}: expected ${expected}, got ${describe(got)}`);
}

function decodeHex(path: string, value: string): Uint8Array {
  if (value.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(value)) fail(path, 'a hex string', value);
  return Buffer.from(value, 'hex');
}

function decodeBase64(path: string, value: string): Uint8Array {
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(value)) fail(path, 'a base64 string', value);
  return Buffer.from(value, 'base64');
}

const INT_RANGES: Record<string, [bigint, bigint]> = {
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  sint64: [-(2n ** 63n), 2n ** 63n - 1n],
  sfixed64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
  fixed64: [0n, 2n ** 64n - 1n],
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  sint32: [-(2n ** 31n), 2n ** 31n - 1n],
  sfixed32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  fixed32: [0n, 2n ** 32n - 1n],
};

/** Integers as numbers or decimal strings, refused outside their protobuf type's range (never wrapped). */
function decodeInteger(path: string, value: unknown, type: string): string | number {
  let n: bigint;
  if (typeof value === 'number' && Number.isInteger(value)) n = BigInt(value);
  else if (typeof value === 'string' && /^-?\d{1,40}$/.test(value)) n = BigInt(value);
  else return fail(path, `an integer (${type}, as a number or a decimal string)`, value);
  const [min, max] = INT_RANGES[type]!;
  if (n < min || n > max) fail(path, `an integer in the range of ${type} (${min} to ${max})`, value);
  return INT64_TYPES.has(type) ? n.toString() : Number(n);
}

function decodeDouble(path: string, value: unknown): number {
  if (typeof value === 'number') return value;
  if (value === 'NaN') return Number.NaN;
  if (value === 'Infinity') return Number.POSITIVE_INFINITY;
  if (value === '-Infinity') return Number.NEGATIVE_INFINITY;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return fail(path, 'a number', value);
}

/**
 * How a decode goes: the AnyValue nesting allowed and reached so far, and
 * where refused spans are counted (absent: any error refuses the whole body).
 */
interface DecodeContext {
  maxAnyValueDepth: number;
  anyDepth: number;
  /** AnyValues the current span may still hold (limits.maxValuesPerSpan). */
  valuesLeft: number;
  maxValuesPerSpan: number;
  rejections: SpanRejections | undefined;
}

function decodeScalar(path: string, field: protobuf.Field, value: unknown, ctx: DecodeContext): unknown {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Enum) {
    if (typeof value === 'number' && Number.isInteger(value)) return value;
    if (typeof value === 'string' && value in resolved.values) return resolved.values[value];
    return fail(path, `an integer or a name of enum ${resolved.name}`, value);
  }
  if (resolved instanceof protobuf.Type) return decodeMessage(path, resolved, value, ctx);
  const type = field.type;
  if (type === 'string') return typeof value === 'string' ? value : fail(path, 'a string', value);
  if (type === 'bool') return typeof value === 'boolean' ? value : fail(path, 'a boolean', value);
  if (type === 'double' || type === 'float') return decodeDouble(path, value);
  if (INT64_TYPES.has(type) || INT32_TYPES.has(type)) return decodeInteger(path, value, type);
  if (type === 'bytes') {
    if (typeof value !== 'string') return fail(path, HEX_BYTES_FIELDS.has(field.name) ? 'a hex string' : 'a base64 string', value);
    return HEX_BYTES_FIELDS.has(field.name) ? decodeHex(path, value) : decodeBase64(path, value);
  }
  throw new Error(`otlp-json: unsupported field type ${type}`);
}

/** Each message type's fields with their snake_case spelling, computed once. */
const fieldPlans = new Map<Type, { field: protobuf.Field; snake: string }[]>();
function planOf(type: Type): { field: protobuf.Field; snake: string }[] {
  let plan = fieldPlans.get(type);
  if (!plan) {
    plan = type.fieldsArray.map((field) => ({ field, snake: snakeCase(field.name) }));
    fieldPlans.set(type, plan);
  }
  return plan;
}

function decodeMessage(path: string, type: Type, value: unknown, ctx: DecodeContext): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return fail(path, `an object (${type.name})`, value);
  if (type === AnyValueType) {
    if (ctx.anyDepth >= ctx.maxAnyValueDepth) throw new OtlpDecodeError(`${shortPath(path)}: attribute value nested deeper than ${ctx.maxAnyValueDepth} levels`);
    if (--ctx.valuesLeft < 0) throw new OtlpDecodeError(`${shortPath(path)}: more than ${ctx.maxValuesPerSpan} attribute values in one span`);
    ctx.anyDepth++;
    try {
      return decodeFields(path, type, value as Record<string, unknown>, ctx);
    } finally {
      ctx.anyDepth--;
    }
  }
  return decodeFields(path, type, value as Record<string, unknown>, ctx);
}

/** A span that fails to decode is refused alone when the context counts rejections. */
function decodeSpans(path: string, field: protobuf.Field, items: unknown[], ctx: DecodeContext): unknown[] {
  const rejections = ctx.rejections;
  if (!rejections) return items.map((item, i) => decodeScalar(`${path}[${i}]`, field, item, ctx));
  const kept: unknown[] = [];
  items.forEach((item, i) => {
    const spanPath = `${path}[${i}]`;
    ctx.valuesLeft = ctx.maxValuesPerSpan;
    try {
      kept.push(decodeScalar(spanPath, field, item, ctx));
    } catch (err) {
      const problem = err instanceof OtlpDecodeError && err.message.startsWith(spanPath) ? err.message.slice(spanPath.length).replace(/^[.:]\s*/, '') : decodeProblem(err);
      rejectSpan(rejections, spanPath, problem);
    }
  });
  return kept;
}

function decodeFields(path: string, type: Type, input: Record<string, unknown>, ctx: DecodeContext): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { field, snake } of planOf(type)) {
    const key = input[field.name] !== undefined ? field.name : snake;
    const raw = input[key];
    if (raw === undefined || raw === null) continue;
    const fieldPath = path ? `${path}.${key}` : key;
    if (field.repeated) {
      if (!Array.isArray(raw)) fail(fieldPath, 'an array', raw);
      const items = field.resolvedType === SpanType ? decodeSpans(fieldPath, field, raw, ctx) : raw.map((item, i) => decodeScalar(`${fieldPath}[${i}]`, field, item, ctx));
      if (items.length > 0) out[field.name] = items;
    } else {
      const value = decodeScalar(fieldPath, field, raw, ctx);
      // proto3: a plain field holding its default is the same as an absent one; dropping it makes a message
      // decode to the same model from JSON as from protobuf. Oneof members keep their presence.
      if (field.partOf || !isProto3Default(value)) out[field.name] = value;
    }
  }
  return out;
}

function isProto3Default(value: unknown): boolean {
  return value === 0 || value === '0' || value === '' || value === false || (value instanceof Uint8Array && value.length === 0);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text.replace(LONG_INT_LITERAL, '$1"$2"'));
  } catch (err) {
    throw new OtlpDecodeError(`invalid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function decodeBody<T>(
  type: Type,
  body: Uint8Array | string,
  ctx: DecodeContext = { maxAnyValueDepth: Infinity, anyDepth: 0, valuesLeft: Infinity, maxValuesPerSpan: Infinity, rejections: undefined },
): T {
  // TextDecoder drops a UTF-8 byte-order mark, which some HTTP clients prepend to JSON.
  const text = typeof body === 'string' ? body.replace(/^\uFEFF/, '') : new TextDecoder('utf-8', { fatal: false }).decode(body);
  try {
    return decodeMessage('', type, parseJson(text), ctx) as T;
  } catch (err) {
    if (err instanceof OtlpDecodeError) throw err;
    throw new OtlpDecodeError(`invalid ${type.name}: ${decodeProblem(err)}`);
  }
}

/**
 * Decodes an OTLP/JSON ExportTraceServiceRequest span by span: a span with a
 * field of the wrong type, an out-of-range integer or attribute values nested
 * deeper than `maxAnyValueDepth` is refused alone; errors outside spans refuse
 * the whole request (OtlpDecodeError).
 */
export function decodeTraceRequestJsonPerSpan(body: Uint8Array | string, limits: SpanLimits): DecodedTraceRequest {
  const rejections: SpanRejections = { rejectedSpans: 0, rejectionMessages: [] };
  const { maxAnyValueDepth, maxValuesPerSpan } = limits;
  const request = decodeBody<OtlpTraceRequest>(ExportTraceServiceRequestType, body, { maxAnyValueDepth, anyDepth: 0, valuesLeft: maxValuesPerSpan, maxValuesPerSpan, rejections });
  return { request, wire: new WeakMap(), ...rejections };
}

function encodeScalar(field: protobuf.Field, value: unknown): unknown {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Type) return encodeMessage(resolved, value as Record<string, unknown>);
  if (resolved instanceof protobuf.Enum) return value;
  if (field.type === 'bytes') {
    const bytes = Buffer.from(value as Uint8Array);
    return HEX_BYTES_FIELDS.has(field.name) ? bytes.toString('hex') : bytes.toString('base64');
  }
  if (INT64_TYPES.has(field.type)) return String(value);
  if ((field.type === 'double' || field.type === 'float') && typeof value === 'number' && !Number.isFinite(value)) {
    return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
  }
  return value;
}

function encodeMessage(type: Type, value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    const v = value[field.name];
    if (v === undefined || v === null) continue;
    if (field.repeated) {
      if (!Array.isArray(v) || v.length === 0) continue;
      out[field.name] = v.map((item) => encodeScalar(field, item));
    } else {
      out[field.name] = encodeScalar(field, v);
    }
  }
  return out;
}

export const decodeTraceRequestJson = (body: Uint8Array | string): OtlpTraceRequest =>
  decodeBody(ExportTraceServiceRequestType, body);
export const decodeTraceResponseJson = (body: Uint8Array | string): OtlpTraceResponse =>
  decodeBody(ExportTraceServiceResponseType, body);
export const decodeRpcStatusJson = (body: Uint8Array | string): RpcStatus => {
  const s = decodeBody<Partial<RpcStatus>>(RpcStatusType, body);
  return { code: s.code ?? 0, message: s.message ?? '' };
};

const stringify = (type: Type, value: object): string => JSON.stringify(encodeMessage(type, value as Record<string, unknown>));
export const encodeTraceRequestJson = (request: OtlpTraceRequest): string => stringify(ExportTraceServiceRequestType, request);
export const encodeTraceResponseJson = (response: OtlpTraceResponse): string => stringify(ExportTraceServiceResponseType, response);
export const encodeRpcStatusJson = (status: RpcStatus): string => stringify(RpcStatusType, status);
