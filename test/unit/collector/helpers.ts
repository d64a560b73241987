import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { decodeTraceRequestJson } from '../../../src/collector/otlp-json.js';
import type { OtlpSpan, OtlpTraceRequest } from '../../../src/collector/otlp-model.js';
import { decodeTraceRequestProto, encodeTraceRequestProto } from '../../../src/collector/otlp-protobuf.js';

/** One request the upstream OTLP receiver got. */
export interface UpstreamRequest {
  contentType: string;
  headers: IncomingMessage['headers'];
  body: OtlpTraceRequest;
}

/**
 * A real OTLP/HTTP receiver on 127.0.0.1 standing in for the forward target.
 * `respond` decides each answer (default 200), so tests can script failures.
 */
export interface Upstream {
  url: string;
  requests: UpstreamRequest[];
  /** Requests that were answered 2xx, i.e. the spans the collector delivered. */
  accepted: UpstreamRequest[];
  respond: (req: UpstreamRequest, attempt: number, res: ServerResponse) => boolean | Promise<boolean>;
  close(): Promise<void>;
}

export async function startUpstream(): Promise<Upstream> {
  const upstream: Upstream = {
    url: '',
    requests: [],
    accepted: [],
    respond: () => true,
    close: async () => {},
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        let raw = Buffer.concat(chunks);
        if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
        const contentType = req.headers['content-type'] ?? '';
        const body = contentType.includes('json') ? decodeTraceRequestJson(raw) : decodeTraceRequestProto(raw);
        const entry = { contentType, headers: req.headers, body };
        upstream.requests.push(entry);
        const ok = await upstream.respond(entry, upstream.requests.length, res);
        if (ok) {
          upstream.accepted.push(entry);
          if (!res.headersSent) {
            res.writeHead(200, { 'content-type': contentType.includes('json') ? 'application/json' : 'application/x-protobuf' });
            res.end(contentType.includes('json') ? '{}' : '');
          }
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
  upstream.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return upstream;
}

export function spansOf(requests: readonly UpstreamRequest[]): OtlpSpan[] {
  return requests.flatMap((r) => (r.body.resourceSpans ?? []).flatMap((rs) => (rs.scopeSpans ?? []).flatMap((ss) => ss.spans ?? [])));
}

export function attr(span: OtlpSpan, key: string): unknown {
  const v = span.attributes?.find((kv) => kv.key === key)?.value;
  if (!v) return undefined;
  return v.stringValue ?? v.boolValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.doubleValue);
}

let counter = 0;
/** A fresh valid 16-byte trace id / 8-byte span id as hex. */
export function hexId(bytes: 16 | 8): string {
  counter++;
  return (counter.toString(16).padStart(6, '0') + 'ab').repeat(bytes).slice(0, bytes * 2);
}

/** An OTLP/JSON request with `n` plain spans in one trace. */
export function jsonRequest(n: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const traceId = hexId(16);
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'test-agent' } }] },
        scopeSpans: [
          {
            scope: { name: 'test' },
            spans: Array.from({ length: n }, (_, i) => ({
              traceId,
              spanId: hexId(8),
              name: `span-${i}`,
              kind: 1,
              startTimeUnixNano: '1700000000000000000',
              endTimeUnixNano: '1700000000100000000',
              ...extra,
            })),
          },
        ],
      },
    ],
  };
}

export async function waitFor(check: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** An OTLP/JSON request encoded as OTLP/protobuf by the collector's own codec. */
export function protoRequest(json: Record<string, unknown>): Uint8Array {
  return encodeTraceRequestProto(decodeTraceRequestJson(JSON.stringify(json)));
}

/** OTLP/JSON text of an AnyValue holding a kvlist nested `depth` levels deep (built as text: no recursion limit). */
export function nestedKvlistJson(depth: number): string {
  return '{"kvlistValue":{"values":[{"key":"k","value":'.repeat(depth) + '{"stringValue":"x"}' + '}]}}'.repeat(depth);
}

/** Protobuf wire bytes, written by hand so tests can build what no encoder would. */
export function varint(n: number): Buffer {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return Buffer.from(out);
}

/** A length-delimited field. */
export function ld(field: number, payload: Uint8Array): Buffer {
  return Buffer.concat([varint(field * 8 + 2), varint(payload.length), payload]);
}

/** An AnyValue (wire bytes) holding a kvlist nested `depth` levels deep, built bottom-up without recursion. */
export function nestedKvlistProto(depth: number): Buffer {
  let value: Buffer = ld(1, Buffer.from('x'));
  for (let i = 0; i < depth; i++) {
    const keyValue = Buffer.concat([ld(1, Buffer.from('k')), ld(2, value)]);
    value = ld(6, ld(1, keyValue));
  }
  return value;
}

/**
 * One ExportTraceServiceRequest (wire bytes) with one scope of spans, each
 * given as extra Span fields (wire bytes) after fresh valid ids and a name.
 */
export function protoSpansRequest(...spanExtras: Uint8Array[]): Buffer {
  const traceId = Buffer.from(hexId(16), 'hex');
  const spans = spanExtras.map((extra) => ld(2, Buffer.concat([ld(1, traceId), ld(2, Buffer.from(hexId(8), 'hex')), ld(5, Buffer.from('span')), extra])));
  return ld(1, ld(2, Buffer.concat(spans)));
}

/** A Span attribute field (wire bytes) with the given AnyValue bytes. */
export function protoAttribute(key: string, anyValue: Uint8Array): Buffer {
  return ld(9, Buffer.concat([ld(1, Buffer.from(key)), ld(2, anyValue)]));
}
