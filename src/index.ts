/**
 * The detection engine and the span processor, without the SDK setup of
 * `register()`: for hosts that bring their own tracer provider.
 */
export { LoopGuardSpanProcessor, type Detection, type LoopGuardProcessorOptions } from './processor.js';
export { LoopBreakError, ToolCallBlockedError, isLoopBreak, isLoopGuardVerdictError, loopBreakOf, type LoopEvidence } from './breaker.js';
export { LoopEngine, type PreVerdict, type RunVerdict, type StopInfo } from './engine.js';
export { DETECTION_DEFAULTS, LoopGuardConfigError, resolveDetectionOptions, type DetectionOptions, type OptionProblem, type ToolOptions } from './options.js';
export { DETECTOR_NAMES, PRESETS, PRESET_NAMES, type DetectorName, type PresetName, type Thresholds } from './config.js';
export type { Decision } from './policy.js';
export type { Level, Outcome, ToolEvent } from './types.js';
export * as semconv from './semconv.js';
export { VERSION } from './version.js';
