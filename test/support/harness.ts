import { context, type Attributes } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { register, type RegisterOptions } from '../../instrumentation/index.js';
import { LoopGuardSpanProcessor, type LoopGuardProcessorOptions } from '../../src/processor.js';

/**
 * A real SDK 2.x tracer provider with the loopguard processor, an in-memory
 * exporter and an in-memory metric reader, wired the way a user attaches
 * loopguard to a provider of their own.
 */
export function createHarness(options: Omit<RegisterOptions, 'tracerProvider' | 'processor'> = {}) {
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const { onLoop, onComplete, appendNudge, onBlock, captureContent, classifyResult, ...processorOptions } = options;
  const processor = new LoopGuardSpanProcessor({ ...(processorOptions as LoopGuardProcessorOptions), meterProvider });
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [processor, new SimpleSpanProcessor(exporter)] });
  const guard = register({ tracerProvider: provider, processor, onLoop, onComplete, appendNudge, onBlock, captureContent, classifyResult, instrumentations: false });
  return {
    guard,
    processor,
    provider,
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
    toolSpans: (): ReadableSpan[] =>
      exporter
        .getFinishedSpans()
        .filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool')
        .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]),
    /** Metric points by instrument name, with their attributes. */
    async metrics(): Promise<Map<string, Array<{ attributes: Attributes; value: number }>>> {
      await reader.forceFlush();
      const out = new Map<string, Array<{ attributes: Attributes; value: number }>>();
      const last = metricExporter.getMetrics().at(-1);
      for (const scope of last?.scopeMetrics ?? []) {
        for (const metric of scope.metrics) {
          out.set(
            metric.descriptor.name,
            metric.dataPoints.map((p) => ({ attributes: p.attributes, value: p.value as number })),
          );
        }
      }
      return out;
    },
    async close(): Promise<void> {
      await provider.shutdown();
      await meterProvider.shutdown();
      context.disable();
    },
  };
}

export type Harness = ReturnType<typeof createHarness>;
