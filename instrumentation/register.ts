import { context, type Tracer, type TracerProvider } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { LoopGuardConfigError, isPlainObject } from '../src/options.js';
import { LoopGuardSpanProcessor, type LoopGuardProcessorOptions } from '../src/processor.js';
import { VERSION } from '../src/version.js';
import { otlpTracesEndpoint, warnOnExportFailure } from './export-warning.js';
import { Guard, type GuardOptions } from './guard.js';
import { frameworkInstrumentations, frameworksReady, type FrameworkInstrumentation, type FrameworkOptions } from './adapters/index.js';

export type ExporterChoice = 'otlp' | 'console' | 'none';

export interface RegisterOptions extends LoopGuardProcessorOptions, GuardOptions {
  /** `service.name`. default: OTEL_SERVICE_NAME, else "agent" */
  serviceName?: string;
  /**
   * Where spans go: a batch OTLP/HTTP exporter configured by the standard
   * OTEL_EXPORTER_OTLP_* variables, the console, nowhere, or your exporter.
   * default: OTEL_TRACES_EXPORTER when it names one of these, else 'otlp'
   */
  exporter?: ExporterChoice | SpanExporter;
  /** Register the provider (and its context manager) as the global one. default true */
  global?: boolean;
  /**
   * Attach to a provider you already have instead of creating one: create
   * `new LoopGuardSpanProcessor(options)`, pass it in your provider's
   * `spanProcessors`, and give both here.
   */
  tracerProvider?: TracerProvider;
  processor?: LoopGuardSpanProcessor;
  /**
   * Route the tool calls of installed agent frameworks (Vercel AI SDK,
   * LangChain.js/LangGraph.js, MCP client, OpenAI Agents SDK) through the
   * guard: `true` for all, `false` for none, or a selection.
   * default true
   */
  instrumentations?: boolean | FrameworkOptions;
}

const REGISTER_KEYS = new Set([
  'serviceName',
  'exporter',
  'global',
  'tracerProvider',
  'processor',
  'onLoop',
  'appendNudge',
  'onBlock',
  'captureContent',
  'classifyResult',
  'instrumentations',
  'meterProvider',
  'onDetection',
  'now',
]);

function validate(options: RegisterOptions): void {
  if (!isPlainObject(options as unknown)) throw new LoopGuardConfigError('options', 'an object', options);
  const { exporter, onBlock, serviceName, onLoop, tracerProvider, processor } = options;
  if (exporter !== undefined && typeof exporter !== 'object' && !['otlp', 'console', 'none'].includes(exporter)) {
    throw new LoopGuardConfigError('exporter', "'otlp', 'console', 'none' or a SpanExporter", exporter);
  }
  if (onBlock !== undefined && onBlock !== 'result' && onBlock !== 'throw') {
    throw new LoopGuardConfigError('onBlock', "'result' or 'throw'", onBlock);
  }
  if (serviceName !== undefined && (typeof serviceName !== 'string' || serviceName === '')) {
    throw new LoopGuardConfigError('serviceName', 'a non-empty string', serviceName);
  }
  if (onLoop !== undefined && typeof onLoop !== 'function') throw new LoopGuardConfigError('onLoop', 'a function', onLoop);
  if ((tracerProvider === undefined) !== (processor === undefined)) {
    throw new LoopGuardConfigError(
      tracerProvider === undefined ? 'tracerProvider' : 'processor',
      'given together with ' + (tracerProvider === undefined ? 'processor' : 'tracerProvider') + ' (attach mode needs both)',
      undefined,
    );
  }
  const { instrumentations } = options;
  if (instrumentations !== undefined && typeof instrumentations !== 'boolean' && !isPlainObject(instrumentations as unknown)) {
    throw new LoopGuardConfigError('instrumentations', 'true, false or { frameworks: [...] }', instrumentations);
  }
  if (processor !== undefined && !(processor instanceof LoopGuardSpanProcessor)) {
    throw new LoopGuardConfigError('processor', 'a LoopGuardSpanProcessor', processor);
  }
}

function chooseExporter(choice: RegisterOptions['exporter']): SpanProcessor | undefined {
  const fromEnv = process.env.OTEL_TRACES_EXPORTER?.trim();
  const name = choice ?? (fromEnv === 'console' || fromEnv === 'none' || fromEnv === 'otlp' ? fromEnv : 'otlp');
  if (typeof name === 'object') return new BatchSpanProcessor(name);
  if (name === 'none') return undefined;
  // The console is for people watching: print each span as it ends.
  if (name === 'console') return new SimpleSpanProcessor(new ConsoleSpanExporter());
  return new BatchSpanProcessor(warnOnExportFailure(new OTLPTraceExporter(), otlpTracesEndpoint()));
}

/** Splits register() options into the processor's, the guard's, and its own. */
function split(options: RegisterOptions): { processor: LoopGuardProcessorOptions; guard: GuardOptions } {
  const processor: Record<string, unknown> = {};
  const guard: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    if (['onLoop', 'appendNudge', 'onBlock', 'captureContent', 'classifyResult'].includes(key)) guard[key] = value;
    else if (!REGISTER_KEYS.has(key) || ['meterProvider', 'onDetection', 'now'].includes(key)) processor[key] = value;
  }
  return { processor: processor as LoopGuardProcessorOptions, guard: guard as GuardOptions };
}

/**
 * One call sets up loop detection: a tracer provider with the loopguard
 * processor and an exporter, and a guard to wrap tools and runs with.
 * Invalid options throw `LoopGuardConfigError` at once.
 */
export function register(options: RegisterOptions = {}): Guard {
  validate(options);
  const parts = split(options);
  let tracer: Tracer;
  let processor: LoopGuardSpanProcessor;
  let provider: { forceFlush?(): Promise<void>; shutdown?(): Promise<void> };
  if (options.tracerProvider && options.processor) {
    // The user's provider: flushed on request, but its life is theirs.
    provider = { forceFlush: (options.tracerProvider as { forceFlush?(): Promise<void> }).forceFlush?.bind(options.tracerProvider) };
    tracer = options.tracerProvider.getTracer('loopguard', VERSION);
    processor = options.processor;
  } else {
    processor = new LoopGuardSpanProcessor(parts.processor);
    provider = createProvider(options, processor);
    // The provider's own tracer: a provider registered globally before ours would otherwise win.
    tracer = (provider as NodeTracerProvider).getTracer('loopguard', VERSION);
  }
  let adapters: FrameworkInstrumentation[] = [];
  const guard = new Guard(tracer, processor, parts.guard, {
    flush: async () => {
      await provider.forceFlush?.();
    },
    shutdown: async () => {
      for (const adapter of adapters) adapter.disable();
      await provider.shutdown?.();
    },
  });
  if (options.instrumentations !== false) {
    adapters = frameworkInstrumentations(guard, options.instrumentations === true || options.instrumentations === undefined ? {} : options.instrumentations);
    guard.ready = frameworksReady(adapters);
  }
  return guard;
}

function createProvider(options: RegisterOptions, processor: LoopGuardSpanProcessor): NodeTracerProvider {
  const serviceName = options.serviceName ?? process.env.OTEL_SERVICE_NAME ?? 'agent';
  const resource = defaultResource()
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }));
  const exporter = chooseExporter(options.exporter);
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: exporter ? [processor, exporter] : [processor],
  });
  if (options.global !== false) {
    provider.register();
  } else {
    // Runs and tool calls find each other through the active context, so a context manager is needed even when nothing else is global.
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  }
  return provider;
}
