/** Helpers for e2e tests against real Jaeger, OpenTelemetry Collector and Prometheus. */
export { REPO_ROOT, binaryPath, cacheDir, collectorConfigPath } from './paths.js';
export { freePort, freePorts } from './ports.js';
export { describeLog, startService, type ServiceHandle, type StartServiceOptions } from './service.js';
export { getJson, httpOk, waitFor, type WaitOptions } from './wait.js';
export {
  jaegerEvents,
  jaegerFindTraces,
  jaegerGetTrace,
  jaegerTag,
  jaegerWaitForTraces,
  startJaeger,
  type FindTracesQuery,
  type JaegerInstance,
  type JaegerSpan,
  type JaegerTrace,
} from './jaeger.js';
export { OTELCOL_PORT_VARIABLES, startOtelcol, type OtelcolInstance } from './otelcol.js';
export {
  prometheusAlerts,
  prometheusQuery,
  prometheusRules,
  prometheusTargets,
  startPrometheus,
  type PrometheusAlert,
  type PrometheusInstance,
  type PrometheusSample,
} from './prometheus.js';
export { runPromtool, type PromtoolResult } from './promtool.js';
export { createOtlpTracer, type OtlpTracer } from './otlp-tracer.js';
export {
  loopguardRunVerdict,
  startLoopguardCollector,
  type LoopguardCollectorInstance,
  type StartLoopguardCollectorOptions,
} from './loopguard-collector.js';
export { memoryAfterGc, type MemoryAfterGc } from './inspector.js';
