/**
 * The loopguard collector: `startCollector(config)` runs the service,
 * `loadCollectorConfig(path?, env?)` reads its YAML file and environment,
 * `closeOnSignals(collector)` gives it the SIGTERM/SIGINT behaviour the CLI needs.
 * See docs/collector.md.
 */
export { startCollector } from './server.js';
export type { RunningCollector, StartCollectorOptions } from './server.js';
export { CollectorConfigError, COLLECTOR_CONFIG_FIELDS, loadCollectorConfig, resolveCollectorConfig } from './config.js';
export type { CollectorConfig, CollectorConfigInput } from './config.js';
export type { SpanAnnotator } from './annotate.js';
export { closeOnSignals } from './signals.js';
export type { CloseOnSignalsOptions } from './signals.js';
