import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { LoopGuardSpanProcessor, register, type RegisterOptions } from 'loopguard';

/**
 * An OpenTelemetry SDK 3.x `TracerProvider` with loopguard's processor and an
 * in-memory exporter, attached the way an SDK 3 application would: its own
 * provider and context manager, then `register({ tracerProvider, processor })`.
 */
export function createSdk3Harness(options: Omit<RegisterOptions, 'tracerProvider' | 'processor'> = {}) {
  // SDK 3 providers have no register(): the application sets the context manager itself.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const { onLoop, appendNudge, onBlock, captureContent, classifyResult, ...processorOptions } = options;
  const processor = new LoopGuardSpanProcessor(processorOptions);
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [processor, new SimpleSpanProcessor({ exporter })] });
  const guard = register({ tracerProvider: provider, processor, onLoop, appendNudge, onBlock, captureContent, classifyResult });
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
    async close(): Promise<void> {
      await provider.shutdown();
      context.disable();
    },
  };
}
