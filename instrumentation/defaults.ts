import { DETECTION_DEFAULTS } from '../src/options.js';

/**
 * Every default of `register()`, in one object: the detection defaults the
 * processor and the collector share, and those of the guard and the SDK
 * setup. `serviceName` and `exporter` yield to OTEL_SERVICE_NAME and
 * OTEL_TRACES_EXPORTER first. The README options table is checked against it.
 */
export const REGISTER_DEFAULTS = Object.freeze({
  serviceName: 'agent',
  exporter: 'otlp' as 'otlp' | 'console' | 'none',
  global: true,
  instrumentations: true,
  appendNudge: true,
  onBlock: 'result' as 'result' | 'throw',
  captureContent: false,
  ...DETECTION_DEFAULTS,
});
