import { decodeTraceRequestJson } from '../../collector/otlp-json.js';
import { OtlpDecodeError } from '../../collector/otlp-model.js';
import { OtlpSpanAdapter } from '../../collector/span-adapter.js';
import { FormatError, isObject, lineOf } from './input.js';
import { spansToRuns } from './spans.js';
import type { FormatReader } from './types.js';

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
    const spans: OtlpSpanAdapter[] = [];
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
            spans.push(new OtlpSpanAdapter(record, rs.resource, ss.scope));
          }
        }
      }
    }
    return spansToRuns(spans, options);
  },
};
