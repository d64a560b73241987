/**
 * A real OpenTelemetry JS tracer exporting OTLP/HTTP (protobuf) to one
 * endpoint, for tests that play an agent without loopguard in-process.
 */
import type { Tracer } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';

export interface OtlpTracer {
  readonly tracer: Tracer;
  readonly provider: BasicTracerProvider;
  /** Spans the exporter reported as exported / as failed so far. */
  readonly exported: { spans: number; failedSpans: number; errors: string[] };
  /** Waits until every ended span was exported; throws if any export failed. */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * Counts what the real exporter reports, so a test can tell "the backend lost
 * spans" from "the agent never managed to send them", and sends one batch at
 * a time. The SDK's BatchSpanProcessor exports every remaining batch at once
 * on forceFlush/shutdown, next to a timed export still in flight; concurrent
 * requests can reach the collector in either order, and a run's root span
 * overtaking its last tool calls gets a partial summary. The scenarios test
 * that the pipeline behind the agent keeps the order, so the agent sends in
 * order.
 */
class OrderedCountingExporter implements SpanExporter {
  readonly stats = { spans: 0, failedSpans: 0, errors: [] as string[] };
  private previous: Promise<void> = Promise.resolve();
  constructor(private readonly inner: SpanExporter) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.previous = this.previous.then(
      () =>
        new Promise<void>((sent) => {
          this.inner.export(spans, (result) => {
            if (result.code === ExportResultCode.SUCCESS) this.stats.spans += spans.length;
            else {
              this.stats.failedSpans += spans.length;
              this.stats.errors.push(result.error?.message ?? 'export failed without an error');
            }
            sent();
            resultCallback(result);
          });
        }),
    );
  }

  async shutdown(): Promise<void> {
    await this.previous;
    return this.inner.shutdown();
  }

  async forceFlush(): Promise<void> {
    await this.previous;
    return this.inner.forceFlush?.();
  }
}

/** `baseUrl` is an OTLP/HTTP base URL; spans go to `${baseUrl}/v1/traces`. */
export function createOtlpTracer(baseUrl: string, serviceName: string): OtlpTracer {
  const exporter = new OrderedCountingExporter(new OTLPTraceExporter({ url: `${baseUrl.replace(/\/$/, '')}/v1/traces` }));
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    // Short delay so tests need not wait; a queue large enough for the
    // scale-out scenario's bursts (the default 2048 would drop spans).
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 50, maxQueueSize: 65_536, maxExportBatchSize: 512 })],
  });
  const flush = async (): Promise<void> => {
    await provider.forceFlush();
    if (exporter.stats.failedSpans > 0) {
      throw new Error(`OTLP export to ${baseUrl} failed for ${exporter.stats.failedSpans} span(s): ${[...new Set(exporter.stats.errors)].join('; ')}`);
    }
  };
  return {
    tracer: provider.getTracer('loopguard-e2e'),
    provider,
    exported: exporter.stats,
    flush,
    shutdown: () => provider.shutdown(),
  };
}
