import type { FingerprintOptions } from './fingerprint/options.js';
import {
  DETECTOR_NAMES,
  PRESETS,
  PRESET_NAMES,
  TIERED_DETECTORS,
  type DetectorName,
  type PresetName,
  type Thresholds,
  type TieredDetector,
} from './config.js';

/** Per-tool exceptions (DESIGN §7: users ask for per-tool exceptions and thresholds). */
export interface ToolOptions {
  /** Never run detection on this tool's calls (they still get spans and hashes). default false */
  ignore?: boolean;
  /** Tier overrides for this tool only. */
  thresholds?: Partial<Record<TieredDetector, Partial<Thresholds>>>;
  /** Argument fields left out of the normalised args hash (request ids, nonces). default [] */
  ignoreArgs?: string[];
  /** Result fields masked before the result hash, added to the built-in volatile keys. default [] */
  volatileKeys?: string[];
}

/** Detection options shared by the in-process processor and the collector. */
export interface DetectionOptions {
  /** Threshold preset. default 'balanced' */
  preset?: PresetName;
  /** Events kept per run (the sliding window). default 30, range 4..256 */
  window?: number;
  /** Tier overrides per detector, on top of the preset. */
  thresholds?: Partial<Record<TieredDetector, Partial<Thresholds>>>;
  /** Detector families switched off. default [] */
  disable?: DetectorName[];
  /** Fuse: tool calls per run; warning at 80 %, break at the limit; 0 turns it off. default 500 */
  maxToolCalls?: number;
  /** Fuse: wall time per run in ms, from its first tool call; 0 turns it off. default 0 */
  maxRunMs?: number;
  /** Fuse: gen_ai.usage.* tokens per run; 0 turns it off. default 0 */
  maxTokens?: number;
  /** Steps before the same warning is repeated to the model. default 5 */
  warningCooldown?: number;
  /** Runs tracked at once; the least recently active is evicted beyond it. default 10000 */
  maxRuns?: number;
  /** A run idle this long (ms) is forgotten. default 1800000 (30 min) */
  runTtlMs?: number;
  /** Per-tool exceptions, by tool name. default {} */
  tools?: Record<string, ToolOptions>;
  /** Span attribute read as the run key before `gen_ai.conversation.id`. default none */
  runKeyAttribute?: string;
}

export interface ResolvedDetectionOptions {
  preset: PresetName;
  window: number;
  thresholds: Record<TieredDetector, Thresholds>;
  disabled: ReadonlySet<DetectorName>;
  maxToolCalls: number;
  maxRunMs: number;
  maxTokens: number;
  warningCooldown: number;
  maxRuns: number;
  runTtlMs: number;
  tools: Readonly<Record<string, ResolvedToolOptions>>;
  runKeyAttribute: string | undefined;
}

export interface ResolvedToolOptions {
  ignore: boolean;
  thresholds: Record<TieredDetector, Thresholds> | undefined;
  ignoreArgs: string[];
  volatileKeys: string[];
  /** `ignoreArgs` and `volatileKeys` as the fingerprint functions take them, built once with the options. */
  fingerprint: FingerprintOptions;
}

/** Thrown by `register()`, the processor and the collector for options they cannot accept. */
export class LoopGuardConfigError extends Error {
  readonly code = 'LOOPGUARD_INVALID_OPTION';
  constructor(
    readonly option: string,
    expected: string,
    received: unknown,
  ) {
    super(`loopguard: option "${option}" must be ${expected}; received ${describe(received)}`);
    this.name = 'LoopGuardConfigError';
  }
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || typeof value !== 'object') return String(value);
  try {
    return JSON.stringify(value).slice(0, 80);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Rejects keys the schema does not know, so a typo is an error instead of a silent default. */
export function rejectUnknownKeys(prefix: string, value: Record<string, unknown>, known: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      throw new LoopGuardConfigError(`${prefix}${key}`, `one of the known options (${known.join(', ')})`, key);
    }
  }
}

export function integerOption(name: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new LoopGuardConfigError(name, `an integer from ${min} to ${max}`, value);
  }
  return value;
}

function stringList(name: string, value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    throw new LoopGuardConfigError(name, 'an array of strings', value);
  }
  return value as string[];
}

const DETECTION_KEYS = [
  'preset',
  'window',
  'thresholds',
  'disable',
  'maxToolCalls',
  'maxRunMs',
  'maxTokens',
  'warningCooldown',
  'maxRuns',
  'runTtlMs',
  'tools',
  'runKeyAttribute',
] as const;

const TIER_KEYS = ['warning', 'critical', 'break'] as const;

function thresholdsOption(
  name: string,
  value: unknown,
  base: Record<TieredDetector, Thresholds>,
): Record<TieredDetector, Thresholds> {
  if (value === undefined) return base;
  if (!isPlainObject(value)) throw new LoopGuardConfigError(name, 'an object keyed by detector name', value);
  rejectUnknownKeys(`${name}.`, value, TIERED_DETECTORS);
  const out = { ...base };
  for (const detector of TIERED_DETECTORS) {
    const override = value[detector];
    if (override === undefined) continue;
    const field = `${name}.${detector}`;
    if (!isPlainObject(override)) throw new LoopGuardConfigError(field, 'an object with warning, critical, break', override);
    rejectUnknownKeys(`${field}.`, override, TIER_KEYS);
    const merged = { ...base[detector] };
    for (const tier of TIER_KEYS) merged[tier] = integerOption(`${field}.${tier}`, override[tier], merged[tier], 0, 1_000_000);
    const active = TIER_KEYS.map((tier) => merged[tier]).filter((n) => n > 0);
    if (active.some((n, i) => i > 0 && n < active[i - 1]!)) {
      throw new LoopGuardConfigError(field, 'tiers with warning <= critical <= break (0 switches a tier off)', merged);
    }
    out[detector] = merged;
  }
  return out;
}

function toolsOption(value: unknown, base: Record<TieredDetector, Thresholds>): Record<string, ResolvedToolOptions> {
  if (value === undefined) return {};
  if (!isPlainObject(value)) throw new LoopGuardConfigError('tools', 'an object keyed by tool name', value);
  const out: Record<string, ResolvedToolOptions> = {};
  for (const [tool, opts] of Object.entries(value)) {
    const field = `tools.${tool}`;
    if (!isPlainObject(opts)) throw new LoopGuardConfigError(field, 'an object', opts);
    rejectUnknownKeys(`${field}.`, opts, ['ignore', 'thresholds', 'ignoreArgs', 'volatileKeys']);
    if (opts.ignore !== undefined && typeof opts.ignore !== 'boolean') {
      throw new LoopGuardConfigError(`${field}.ignore`, 'a boolean', opts.ignore);
    }
    const ignoreArgs = stringList(`${field}.ignoreArgs`, opts.ignoreArgs);
    const volatileKeys = stringList(`${field}.volatileKeys`, opts.volatileKeys);
    out[tool] = {
      ignore: opts.ignore === true,
      thresholds: opts.thresholds === undefined ? undefined : thresholdsOption(`${field}.thresholds`, opts.thresholds, base),
      ignoreArgs,
      volatileKeys,
      fingerprint: { ignoreArgs, volatileKeys },
    };
  }
  return out;
}

/** Validates detection options and fills in every default. Throws `LoopGuardConfigError`. */
export function resolveDetectionOptions(input: DetectionOptions = {}): ResolvedDetectionOptions {
  if (!isPlainObject(input as unknown)) throw new LoopGuardConfigError('detection', 'an object', input);
  rejectUnknownKeys('', input as Record<string, unknown>, DETECTION_KEYS);
  const preset = input.preset ?? 'balanced';
  if (!PRESET_NAMES.includes(preset)) {
    throw new LoopGuardConfigError('preset', `one of ${PRESET_NAMES.join(', ')}`, preset);
  }
  const thresholds = thresholdsOption('thresholds', input.thresholds, PRESETS[preset]);
  const disabled = stringList('disable', input.disable);
  for (const name of disabled) {
    if (!DETECTOR_NAMES.includes(name as DetectorName)) {
      throw new LoopGuardConfigError('disable', `detector names from ${DETECTOR_NAMES.join(', ')}`, name);
    }
  }
  if (input.runKeyAttribute !== undefined && (typeof input.runKeyAttribute !== 'string' || input.runKeyAttribute === '')) {
    throw new LoopGuardConfigError('runKeyAttribute', 'a non-empty attribute name', input.runKeyAttribute);
  }
  return {
    preset,
    window: integerOption('window', input.window, 30, 4, 256),
    thresholds,
    disabled: new Set(disabled as DetectorName[]),
    maxToolCalls: integerOption('maxToolCalls', input.maxToolCalls, 500, 0, 1e9),
    maxRunMs: integerOption('maxRunMs', input.maxRunMs, 0, 0, 1e12),
    maxTokens: integerOption('maxTokens', input.maxTokens, 0, 0, 1e12),
    warningCooldown: integerOption('warningCooldown', input.warningCooldown, 5, 1, 10_000),
    maxRuns: integerOption('maxRuns', input.maxRuns, 10_000, 1, 10_000_000),
    runTtlMs: integerOption('runTtlMs', input.runTtlMs, 30 * 60_000, 1_000, 1e12),
    tools: toolsOption(input.tools, thresholds),
    runKeyAttribute: input.runKeyAttribute,
  };
}
