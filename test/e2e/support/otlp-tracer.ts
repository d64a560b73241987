/**
 * A real OpenTelemetry JS tracer exporting OTLP/HTTP (protobuf) to one
 * endpoint, for tests that play an agent without loopguard in-process.
 */
import type { Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

export interface OtlpTracer {
  readonly tracer: Tracer;
  readonly provider: BasicTracerProvider;
  /** Waits until every ended span was exported (or throws with the exporter's error). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** `baseUrl` is an OTLP/HTTP base URL; spans go to `${baseUrl}/v1/traces`. */
export function createOtlpTracer(baseUrl: string, serviceName: string): OtlpTracer {
  const exporter = new OTLPTraceExporter({ url: `${baseUrl.replace(/\/$/, '')}/v1/traces` });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    // Simple, not batch: each span is sent as it ends, so tests need no timers.
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  return {
    tracer: provider.getTracer('loopguard-e2e'),
    provider,
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
