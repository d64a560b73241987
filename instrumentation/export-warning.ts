import { diag } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/** Where the default OTLP/HTTP exporter sends spans, read from the same variables it reads. */
export function otlpTracesEndpoint(env: NodeJS.ProcessEnv = process.env): string {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return base ? `${base.replace(/\/+$/, '')}/v1/traces` : 'http://localhost:4318/v1/traces';
}

/**
 * The default exporter fails quietly when nothing listens (a first run with
 * no collector): say so once, through the diag logger and one warning line
 * naming the endpoint. Spans are still dropped as before.
 */
export function warnOnExportFailure(inner: SpanExporter, endpoint: string): SpanExporter {
  let warned = false;
  return {
    export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
      inner.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS && !warned) {
          warned = true;
          const why = result.error?.message ? ` (${result.error.message})` : '';
          const message = `loopguard: could not export spans to ${endpoint}${why}. Start a collector there, set OTEL_EXPORTER_OTLP_ENDPOINT, or pass register({ exporter: 'none' }). Loop detection works either way.`;
          diag.warn(message);
          process.emitWarning(message, { type: 'LoopGuardWarning', code: 'LOOPGUARD_EXPORT_FAILED' });
        }
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}
