import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { gunzip as gunzipCallback } from 'node:zlib';
import type { RejectReason } from './metrics.js';
import { encodeRpcStatusJson, encodeTraceResponseJson } from './otlp-json.js';
import { RPC_INVALID_ARGUMENT, RPC_RESOURCE_EXHAUSTED, RPC_UNKNOWN } from './otlp-model.js';
import type { OtlpTraceResponse } from './otlp-model.js';
import { encodeRpcStatusProto, encodeTraceResponseProto } from './otlp-protobuf.js';

const gunzip = promisify(gunzipCallback);

/** The two OTLP/HTTP encodings; the response always uses the request's. */
export type BodyFormat = 'protobuf' | 'json';

const CONTENT_TYPES: Record<BodyFormat, string> = {
  protobuf: 'application/x-protobuf',
  json: 'application/json',
};

/** An HTTP error answer, with the metric reason it counts under (if any). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly reason?: RejectReason,
    readonly headers: Record<string, string> = {},
    /** gRPC status code for the google.rpc.Status body. */
    readonly rpcCode = RPC_UNKNOWN,
  ) {
    super(message);
  }
}

/** `application/x-protobuf` or `application/json` (parameters such as charset ignored), else undefined. */
export function bodyFormatOf(contentType: string | undefined): BodyFormat | undefined {
  const media = contentType?.split(';')[0]?.trim().toLowerCase();
  if (media === 'application/x-protobuf' || media === 'application/protobuf') return 'protobuf';
  if (media === 'application/json') return 'json';
  return undefined;
}

/** Slack for discarding the rest of a refused upload before hanging up on the client. */
const DISCARD_LIMIT_BYTES = 64 * 1024 * 1024;

/** First buffer for a body of unknown length; it doubles as needed, up to the limit. */
const INITIAL_BODY_BUFFER = 16 * 1024;

/**
 * Reads the request body, refusing (413) as soon as it is known to be larger
 * than `maxBytes`: from Content-Length before reading anything, else while
 * counting streamed bytes. Nothing beyond the limit is ever buffered, and the
 * bytes land in one buffer (sized from Content-Length, else doubling), so a
 * body trickled in one byte at a time costs one byte per byte, not a Buffer
 * object per chunk.
 */
/** The request's Content-Length when it has a valid one. */
export function declaredLength(req: IncomingMessage): number | undefined {
  const header = req.headers['content-length'];
  const declared = Number(header);
  return header !== undefined && Number.isSafeInteger(declared) && declared >= 0 ? declared : undefined;
}

export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = declaredLength(req);
  const known = declared !== undefined;
  if (known && declared > maxBytes) {
    return Promise.reject(tooLarge(`request body of ${declared} bytes exceeds the limit of ${maxBytes} bytes`));
  }
  return new Promise((resolve, reject) => {
    let buffer = Buffer.allocUnsafe(known ? declared : Math.min(INITIAL_BODY_BUFFER, maxBytes));
    let size = 0;
    const onData = (chunk: Buffer): void => {
      if (size + chunk.length > maxBytes) {
        req.off('data', onData);
        buffer = Buffer.alloc(0);
        reject(tooLarge(`request body exceeds the limit of ${maxBytes} bytes`));
        return;
      }
      if (size + chunk.length > buffer.length) {
        const grown = Buffer.allocUnsafe(Math.min(maxBytes, Math.max(buffer.length * 2, size + chunk.length)));
        buffer.copy(grown, 0, 0, size);
        buffer = grown;
      }
      chunk.copy(buffer, size);
      size += chunk.length;
    };
    req.on('data', onData);
    req.once('end', () => resolve(buffer.subarray(0, size)));
    req.once('error', reject);
    // A connection closed before the body ended (client gone, timeout) settles the read, releasing what it reserved.
    req.once('close', () => {
      if (!req.complete) reject(new HttpError(400, 'request aborted by the client', 'malformed', {}, RPC_INVALID_ARGUMENT));
    });
  });
}

function tooLarge(message: string): HttpError {
  return new HttpError(413, message, 'too_large', {}, RPC_RESOURCE_EXHAUSTED);
}

/**
 * Undoes `Content-Encoding: gzip`, bounding the output at `maxBytes` so a small
 * compressed body cannot expand without limit (zlib stops at the bound).
 */
export async function decodeContentEncoding(body: Buffer, encoding: string | undefined, maxBytes: number): Promise<Buffer> {
  const enc = (encoding ?? 'identity').trim().toLowerCase();
  if (enc === 'identity' || enc === '') return body;
  if (enc !== 'gzip') {
    throw new HttpError(415, `unsupported Content-Encoding "${encoding}": use gzip or none`, 'unsupported_media_type', {}, RPC_INVALID_ARGUMENT);
  }
  try {
    return await gunzip(body, { maxOutputLength: maxBytes });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw tooLarge(`decompressed request body exceeds the limit of ${maxBytes} bytes`);
    }
    throw new HttpError(400, `invalid gzip body: ${(err as Error).message}`, 'malformed', {}, RPC_INVALID_ARGUMENT);
  }
}

/**
 * For an error answer sent before the request body was (fully) read; call it
 * before sending. The connection is closed after the answer, and the rest of
 * the upload is discarded up to a bound so the client can read the answer
 * instead of seeing a reset.
 */
export function discardUnreadBody(req: IncomingMessage, res: ServerResponse): void {
  if (req.complete) return;
  if (!res.headersSent) res.setHeader('connection', 'close');
  let discarded = 0;
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > DISCARD_LIMIT_BYTES) req.socket.destroy();
  });
  req.resume();
}

export function sendBody(res: ServerResponse, status: number, contentType: string, body: string | Uint8Array, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { ...headers, 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  sendBody(res, status, 'application/json', JSON.stringify(value), headers);
}

/** An error answer on /v1/traces: google.rpc.Status in the request's encoding (JSON when it has none we know). */
export function sendRpcStatus(res: ServerResponse, format: BodyFormat | undefined, error: HttpError): void {
  const status = { code: error.rpcCode, message: error.message };
  if (format === 'protobuf') sendBody(res, error.status, CONTENT_TYPES.protobuf, encodeRpcStatusProto(status), error.headers);
  else sendBody(res, error.status, CONTENT_TYPES.json, encodeRpcStatusJson(status), error.headers);
}

export function sendTraceResponse(res: ServerResponse, format: BodyFormat, response: OtlpTraceResponse): void {
  if (format === 'protobuf') sendBody(res, 200, CONTENT_TYPES.protobuf, encodeTraceResponseProto(response));
  else sendBody(res, 200, CONTENT_TYPES.json, encodeTraceResponseJson(response));
}
