import { encodeTraceRequestProto } from '../src/collector/otlp-protobuf.js';
import type { OtlpKeyValue, OtlpSpan } from '../src/collector/otlp-model.js';

/**
 * The bench's requests: OTLP/protobuf ExportTraceServiceRequests of
 * `spansPerRequest` GenAI tool spans each (about 850 bytes a span), spread
 * over a few conversations per request, encoded once before any timing so
 * both systems get byte-identical bodies.
 */
const TOOLS = ['search', 'read_file', 'write_file', 'run_tests', 'http_get', 'sql_query', 'list_dir', 'grep'];

const str = (key: string, value: string): OtlpKeyValue => ({ key, value: { stringValue: value } });
const int = (key: string, value: number): OtlpKeyValue => ({ key, value: { intValue: String(value) } });

function bytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = ((seed + 1) * 2654435761 + i * 40503) % 251 || 1;
  return out;
}

export function benchPayloads(requests: number, spansPerRequest: number): Uint8Array[] {
  const bodies: Uint8Array[] = [];
  let serial = 0;
  for (let r = 0; r < requests; r++) {
    const spans: OtlpSpan[] = [];
    const traceId = bytes(16, r);
    for (let i = 0; i < spansPerRequest; i++) {
      serial++;
      const tool = TOOLS[serial % TOOLS.length]!;
      const conversation = `conv-${r}-${i % 8}`;
      // Every third call repeats an earlier one of its conversation: realistic retries, and loops for the detectors.
      const argSeed = i % 3 === 0 ? i % 24 : serial;
      const start = 1_700_000_000_000_000_000n + BigInt(serial) * 1_000_000n;
      spans.push({
        traceId,
        spanId: bytes(8, serial),
        parentSpanId: bytes(8, r * 1000 + 7),
        name: `execute_tool ${tool}`,
        kind: 1,
        startTimeUnixNano: start.toString(),
        endTimeUnixNano: (start + 250_000n).toString(),
        attributes: [
          str('gen_ai.operation.name', 'execute_tool'),
          str('gen_ai.tool.name', tool),
          str('gen_ai.conversation.id', conversation),
          str('gen_ai.tool.call.id', `call_${serial.toString(36)}`),
          str('gen_ai.tool.call.arguments', JSON.stringify({ query: `find the refund policy for order ${argSeed}`, limit: 10, filters: { region: 'eu', since: '2024-01-01' }, page: argSeed % 4 })),
          str('gen_ai.tool.call.result', JSON.stringify({ hits: [`doc-${argSeed}`, `doc-${argSeed + 1}`], total: 2, took_ms: 12, snippet: 'Refunds are issued within 14 days of the return being received at our warehouse.'.repeat(2) })),
          str('gen_ai.agent.name', 'support-agent'),
          int('gen_ai.usage.input_tokens', 120 + (serial % 50)),
          int('gen_ai.usage.output_tokens', 30 + (serial % 20)),
        ],
        status: { code: 1 },
      });
    }
    bodies.push(
      encodeTraceRequestProto({
        resourceSpans: [
          {
            resource: { attributes: [str('service.name', 'bench-agent'), str('telemetry.sdk.language', 'python')] },
            scopeSpans: [{ scope: { name: 'opentelemetry.instrumentation.genai', version: '0.1.0' }, spans }],
          },
        ],
      }),
    );
  }
  return bodies;
}
