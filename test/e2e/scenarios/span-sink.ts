/**
 * The far end of the collector durability scenarios: an OTLP/HTTP JSON
 * receiver in the test process behind the Go Collector backend
 * (fixtures/otelcol-backend.yaml), counting every span delivered to it by
 * span id, so a test can tell a lost span from a duplicate.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface JsonTraceRequest {
  resourceSpans?: { scopeSpans?: { spans?: { spanId?: string }[] }[] }[];
}

export interface SpanSink {
  /** OTLP/HTTP base URL (any path is accepted). */
  readonly url: string;
  /** Spans received, duplicates included. */
  readonly delivered: number;
  /** Times each span id was received; empty unless the sink keeps ids. */
  readonly ids: ReadonlyMap<string, number>;
  /** Spans received more than once (each extra copy counts). */
  duplicates(): number;
  close(): Promise<void>;
}

export async function startSpanSink({ keepIds }: { keepIds: boolean }): Promise<SpanSink> {
  const ids = new Map<string, number>();
  let delivered = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonTraceRequest;
      for (const resource of body.resourceSpans ?? []) {
        for (const scope of resource.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            delivered++;
            if (keepIds) ids.set(span.spanId!, (ids.get(span.spanId!) ?? 0) + 1);
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get delivered() {
      return delivered;
    },
    ids,
    duplicates: () => [...ids.values()].reduce((sum, count) => sum + count - 1, 0),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
