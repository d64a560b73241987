import { SpanStatusCode } from '@opentelemetry/api';
import { decodeTraceRequestJson } from '../../collector/otlp-json.js';
import { OtlpDecodeError } from '../../collector/otlp-model.js';
import { OtlpSpanAdapter } from '../../collector/span-adapter.js';
import { FormatError, isObject, lineOf } from './input.js';
import { spansToRuns, type TraceSpan } from './spans.js';
import type { FormatReader } from './types.js';

const toMs = (time: readonly [number, number]): number => time[0] * 1e3 + time[1] / 1e6;

/** The collector decoder says `path: expected X, got Y`; split it so the message names the field like every other reader's. */
function decodeError(where: string | undefined, err: OtlpDecodeError): FormatError {
  const m = /^(\S+): (expected .*)$/s.exec(err.message);
  return m ? new FormatError(where, m[1]!, m[2]!) : new FormatError(where, '(line)', err.message);
}

/**
 * OTLP/JSON trace files: what the OpenTelemetry Collector's `file` exporter
 * writes (one ExportTraceServiceRequest a line), or one request as a whole
 * document. Decoded by the collector's own OTLP/JSON decoder and read through
 * the same span adapter, so a file reads exactly as the collector would see it.
 */
export const otlpJsonReader: FormatReader = {
  name: 'otlp-json',
  looksLike: 'OTLP/JSON (one {"resourceSpans":[...]} export request a line, as the Collector\'s file exporter writes)',
  detect: (first) => isObject(first) && 'resourceSpans' in first,
  read(input, options) {
    const spans: TraceSpan[] = [];
    for (const v of input.values) {
      const where = lineOf(v);
      if (!isObject(v.value) || !Array.isArray(v.value.resourceSpans)) {
        throw new FormatError(where, 'resourceSpans', 'must be an array (an OTLP/JSON ExportTraceServiceRequest on every line)');
      }
      let request;
      try {
        request = decodeTraceRequestJson(v.source);
      } catch (err) {
        if (err instanceof OtlpDecodeError) throw decodeError(where, err);
        throw err;
      }
      for (const rs of request.resourceSpans ?? []) {
        for (const ss of rs.scopeSpans ?? []) {
          for (const record of ss.spans ?? []) {
            const span = new OtlpSpanAdapter(record, rs.resource, ss.scope);
            spans.push({
              traceId: span.spanContext().traceId,
              spanId: span.spanContext().spanId,
              parentSpanId: span.parentSpanId,
              name: span.name,
              kind: span.kind,
              attributes: span.attributes,
              startMs: toMs(span.startTime),
              endMs: toMs(span.endTime),
              failed: span.status.code === SpanStatusCode.ERROR,
              statusMessage: span.status.message,
            });
          }
        }
      }
    }
    return spansToRuns(spans, options);
  },
};
