import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { decodeTraceRequestJson } from '../../../src/collector/otlp-json.js';
import type { OtlpSpan, OtlpTraceRequest } from '../../../src/collector/otlp-model.js';
import { decodeTraceRequestProto } from '../../../src/collector/otlp-protobuf.js';

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
