import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/**
 * A real SpanExporter that accepts every batch and throws it away. Both sides
 * of the overhead benchmark export through one of these, so the export cost
 * (not what is measured) is identical and tiny; the span count proves that no
 * span was dropped by the batch processor's queue limit.
 */
export class DiscardingSpanExporter implements SpanExporter {
  exported = 0;

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.exported += spans.length;
    resultCallback({ code: ExportResultCode.SUCCESS });
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
}
