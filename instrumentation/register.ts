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
import { OptionProblems } from '../src/option-problems.js';
import { checkDetectionOptions, DETECTION_KEYS, isPlainObject, rejectUnknownKeys, type DetectionOptions } from '../src/options.js';
import { LoopGuardSpanProcessor, type LoopGuardProcessorOptions } from '../src/processor.js';
import { VERSION } from '../src/version.js';
import { otlpTracesEndpoint, warnOnExportFailure } from './export-warning.js';
import { Guard, type GuardOptions } from './guard.js';
import { frameworkInstrumentations, frameworksReady, type FrameworkInstrumentation, type FrameworkName, type FrameworkOptions } from './adapters/index.js';
import { REGISTER_DEFAULTS } from './defaults.js';

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

/** register()'s own options and the processor's and guard's it passes on; the rest are detection options. */
const GUARD_KEYS = ['onLoop', 'onComplete', 'appendNudge', 'onBlock', 'captureContent', 'classifyResult'];
const PROCESSOR_KEYS = ['meterProvider', 'onDetection', 'now', 'onInternalError'];
const SETUP_KEYS = ['serviceName', 'exporter', 'global', 'tracerProvider', 'processor', 'instrumentations'];
const ALL_KEYS: readonly string[] = [...SETUP_KEYS, ...GUARD_KEYS, ...PROCESSOR_KEYS, ...DETECTION_KEYS];
const EXPORTERS = ['otlp', 'console', 'none'];
const FRAMEWORKS: readonly FrameworkName[] = ['ai-sdk', 'langchain', 'mcp', 'openai-agents'];

const isFunction = (v: unknown): boolean => typeof v === 'function';
const hasMethod = (v: unknown, name: string): boolean => typeof v === 'object' && v !== null && typeof (v as Record<string, unknown>)[name] === 'function';

/** Checks every option at once, before anything is created, and throws one error naming every problem. */
function validate(options: RegisterOptions): void {
  const problems = new OptionProblems();
  if (!isPlainObject(options as unknown)) {
    problems.add('options', 'an object', options);
    problems.throwIfAny();
  }
  const o = options as Record<string, unknown>;
  rejectUnknownKeys(problems, '', o, ALL_KEYS);
  const { exporter, onBlock, serviceName, tracerProvider, processor, instrumentations, captureContent } = o;
  if (exporter !== undefined && !hasMethod(exporter, 'export') && !EXPORTERS.includes(exporter as string)) {
    problems.addChoice('exporter', EXPORTERS, exporter, 'a SpanExporter or one of');
  }
  if (onBlock !== undefined && onBlock !== 'result' && onBlock !== 'throw') problems.addChoice('onBlock', ['result', 'throw'], onBlock);
  if (serviceName !== undefined && (typeof serviceName !== 'string' || serviceName === '')) problems.add('serviceName', 'a non-empty string', serviceName);
  for (const key of ['onLoop', 'onComplete', 'classifyResult', 'onDetection', 'onInternalError', 'now']) {
    if (o[key] !== undefined && !isFunction(o[key])) problems.add(key, 'a function', o[key]);
  }
  for (const key of ['appendNudge', 'global']) {
    if (o[key] !== undefined && typeof o[key] !== 'boolean') problems.add(key, 'true or false', o[key]);
  }
  checkCapture(problems, captureContent);
  checkInstrumentations(problems, instrumentations);
  if ((tracerProvider === undefined) !== (processor === undefined)) {
    const [given, missing] = tracerProvider === undefined ? ['processor', 'tracerProvider'] : ['tracerProvider', 'processor'];
    problems.add(missing, `given together with ${given} (attach mode needs both)`, undefined);
  }
  if (tracerProvider !== undefined && !hasMethod(tracerProvider, 'getTracer')) problems.add('tracerProvider', 'a TracerProvider', tracerProvider);
  if (processor !== undefined && !(processor instanceof LoopGuardSpanProcessor)) problems.add('processor', 'a LoopGuardSpanProcessor', processor);
  if (o.meterProvider !== undefined && !hasMethod(o.meterProvider, 'getMeter')) problems.add('meterProvider', 'a MeterProvider', o.meterProvider);
  const parts = split(options);
  checkDetectionOptions(problems, parts.detection, false);
  if (processor !== undefined) {
    // Attach mode creates no processor: these would be dropped without a word.
    for (const key of Object.keys(parts.processor)) problems.add(key, 'set on the LoopGuardSpanProcessor you pass (attach mode creates none)', o[key]);
  }
  problems.throwIfAny();
}

function checkCapture(problems: OptionProblems, value: unknown): void {
  if (value === undefined || typeof value === 'boolean') return;
  if (!isPlainObject(value)) {
    problems.add('captureContent', 'true, false or { maxLength, redactKeys }', value);
    return;
  }
  rejectUnknownKeys(problems, 'captureContent.', value, ['maxLength', 'redactKeys']);
  const { maxLength, redactKeys } = value;
  if (maxLength !== undefined && !(typeof maxLength === 'number' && Number.isInteger(maxLength) && maxLength > 0)) {
    problems.add('captureContent.maxLength', 'a positive integer', maxLength);
  }
  if (redactKeys !== undefined && !(redactKeys instanceof RegExp)) problems.add('captureContent.redactKeys', 'a RegExp', redactKeys);
}

function checkInstrumentations(problems: OptionProblems, value: unknown): void {
  if (value === undefined || typeof value === 'boolean') return;
  if (!isPlainObject(value)) {
    problems.add('instrumentations', 'true, false or { frameworks, aiModules }', value);
    return;
  }
  rejectUnknownKeys(problems, 'instrumentations.', value, ['frameworks', 'aiModules']);
  const { frameworks, aiModules } = value;
  if (frameworks !== undefined) {
    if (!Array.isArray(frameworks)) problems.add('instrumentations.frameworks', `an array of ${FRAMEWORKS.join(', ')}`, frameworks);
    else for (const name of frameworks) if (!FRAMEWORKS.includes(name)) problems.addChoice('instrumentations.frameworks', FRAMEWORKS, name, 'framework names from');
  }
  if (aiModules !== undefined && !(Array.isArray(aiModules) && aiModules.every((m) => typeof m === 'string' && m !== ''))) {
    problems.add('instrumentations.aiModules', 'an array of package names', aiModules);
  }
}

function chooseExporter(choice: RegisterOptions['exporter']): SpanProcessor | undefined {
  const fromEnv = process.env.OTEL_TRACES_EXPORTER?.trim();
  const name = choice ?? (fromEnv === 'console' || fromEnv === 'none' || fromEnv === 'otlp' ? fromEnv : REGISTER_DEFAULTS.exporter);
  if (typeof name === 'object') return new BatchSpanProcessor(name);
  if (name === 'none') return undefined;
  // The console is for people watching: print each span as it ends.
  if (name === 'console') return new SimpleSpanProcessor(new ConsoleSpanExporter());
  return new BatchSpanProcessor(warnOnExportFailure(new OTLPTraceExporter(), otlpTracesEndpoint()));
}

/** Splits register() options into the processor's (with the detection options), the guard's, and its own. */
function split(options: RegisterOptions): { processor: LoopGuardProcessorOptions; guard: GuardOptions; detection: DetectionOptions } {
  const processor: Record<string, unknown> = {};
  const guard: Record<string, unknown> = {};
  const detection: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    if (GUARD_KEYS.includes(key)) guard[key] = value;
    else if (PROCESSOR_KEYS.includes(key)) processor[key] = value;
    else if (!SETUP_KEYS.includes(key)) processor[key] = detection[key] = value;
  }
  return { processor: processor as LoopGuardProcessorOptions, guard: guard as GuardOptions, detection };
}

/**
 * One call sets up loop detection: a tracer provider with the loopguard
 * processor and an exporter, and a guard to wrap tools and runs with.
 * Invalid options throw one `LoopGuardConfigError` naming every problem,
 * before anything is set up.
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
  const instrumentations = options.instrumentations ?? REGISTER_DEFAULTS.instrumentations;
  if (instrumentations !== false) {
    adapters = frameworkInstrumentations(guard, instrumentations === true ? {} : instrumentations);
    guard.ready = frameworksReady(adapters);
  }
  return guard;
}

function createProvider(options: RegisterOptions, processor: LoopGuardSpanProcessor): NodeTracerProvider {
  const serviceName = options.serviceName ?? process.env.OTEL_SERVICE_NAME ?? REGISTER_DEFAULTS.serviceName;
  const resource = defaultResource()
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }));
  const exporter = chooseExporter(options.exporter);
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: exporter ? [processor, exporter] : [processor],
  });
  if (options.global ?? REGISTER_DEFAULTS.global) {
    provider.register();
  } else {
    // Runs and tool calls find each other through the active context, so a context manager is needed even when nothing else is global.
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  }
  return provider;
}
