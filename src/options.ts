import type { FingerprintOptions } from './fingerprint/options.js';
import { OptionProblems } from './option-problems.js';
import type { SubjectFunction, SubjectKind, SubjectRule } from './subjects.js';
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
  /**
   * What this tool's calls check, for the completion gate, instead of the built-in inference (docs/model-turns.md):
   * `'none'`, `{ kind: 'service' | 'test' | 'file', arg }` (the subject is that argument), or a function of the
   * arguments returning subjects (in-process only: a collector config cannot hold one). default: inferred
   */
  subject?: SubjectRule | SubjectFunction;
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
  /** Fuse: input + output tokens per run, each model response counted once from its LLM span (not from agent/chain spans summing them); 0 turns it off. default 0 */
  maxTokens?: number;
  /** Output tokens (`gen_ai.usage.output_tokens` of the run's LLM spans) per run; the model is told at `outputTokenNoticePercent`, the run stopped at the limit; 0 turns it off. default 0 */
  maxOutputTokens?: number;
  /** Percentage of `maxOutputTokens` at which the model is told how much it used and to keep working without summarising. default 90 */
  outputTokenNoticePercent?: number;
  /** Diminishing returns (only under `maxOutputTokens`): continuations (text answers after the first) before it is judged. default 3 */
  minContinuations?: number;
  /** Diminishing returns: a continuation adding fewer new output tokens than this is a low one. default 500 */
  minContinuationTokens?: number;
  /** Diminishing returns: low continuations in a row that stop the run (each before gets a notice). default 2 */
  lowContinuationsToStop?: number;
  /** Responses in a row cut off by the output limit that stop the run; each before gets a recovery nudge. 0 turns it off. default 3 */
  maxTruncations?: number;
  /** Times one long text answer is given (near-identical, by its similarity sketch) at which the model is warned; 0 turns the warning off. default 3 */
  repeatedAnswerWarning?: number;
  /** Times one long text answer is given at which the run is stopped; 0 turns the stop off. default 5 */
  maxRepeatedAnswers?: number;
  /** Chanting (a response repeating one passage over and over within itself): the first such response of a run is warned, this many stop the run; 0 turns chanting off. default 2 */
  maxChantingResponses?: number;
  /** Steps before the same warning is repeated to the model. default 5 */
  warningCooldown?: number;
  /** Runs tracked at once; the least recently active is evicted beyond it. default 10000 */
  maxRuns?: number;
  /** A run idle this long (ms) is forgotten: its next call starts it afresh. default 1800000 (30 min) */
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
  maxOutputTokens: number;
  outputTokenNoticePercent: number;
  minContinuations: number;
  minContinuationTokens: number;
  lowContinuationsToStop: number;
  maxTruncations: number;
  repeatedAnswerWarning: number;
  maxRepeatedAnswers: number;
  maxChantingResponses: number;
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
  subject: SubjectRule | SubjectFunction | undefined;
}

export { LoopGuardConfigError, type OptionProblem } from './option-problems.js';

/**
 * Every default of the detection options: the resolver fills them in from
 * here, and the README options table and `loopguard --help` are checked
 * against (or printed from) this object.
 */
export const DETECTION_DEFAULTS = Object.freeze({
  preset: 'balanced' as PresetName,
  window: 30,
  disable: Object.freeze([]) as readonly DetectorName[],
  maxToolCalls: 500,
  maxRunMs: 0,
  maxTokens: 0,
  maxOutputTokens: 0,
  outputTokenNoticePercent: 90,
  minContinuations: 3,
  minContinuationTokens: 500,
  lowContinuationsToStop: 2,
  maxTruncations: 3,
  repeatedAnswerWarning: 3,
  maxRepeatedAnswers: 5,
  maxChantingResponses: 2,
  warningCooldown: 5,
  maxRuns: 10_000,
  runTtlMs: 30 * 60_000,
  tools: Object.freeze({}) as Readonly<Record<string, ToolOptions>>,
  runKeyAttribute: undefined as string | undefined,
});

/** Accepted ranges of the integer detection options. */
export const DETECTION_RANGES = Object.freeze({
  window: [4, 256],
  maxToolCalls: [0, 1e9],
  maxRunMs: [0, 1e12],
  maxTokens: [0, 1e12],
  maxOutputTokens: [0, 1e12],
  outputTokenNoticePercent: [1, 99],
  minContinuations: [1, 1000],
  minContinuationTokens: [1, 1e9],
  lowContinuationsToStop: [1, 1000],
  maxTruncations: [0, 1000],
  repeatedAnswerWarning: [0, 1000],
  maxRepeatedAnswers: [0, 1000],
  maxChantingResponses: [0, 1000],
  warningCooldown: [1, 10_000],
  maxRuns: [1, 10_000_000],
  runTtlMs: [1_000, 1e12],
} as const satisfies Record<string, readonly [number, number]>);

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Records keys the schema does not know, so a typo is an error instead of a silent default. */
export function rejectUnknownKeys(problems: OptionProblems, prefix: string, value: Record<string, unknown>, known: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) problems.addChoice(`${prefix}${key}`, known, key, 'one of the known options');
  }
}

function integerOption(problems: OptionProblems, name: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    problems.add(name, `an integer from ${min} to ${max}`, value);
    return fallback;
  }
  return value;
}

function stringList(problems: OptionProblems, name: string, value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    problems.add(name, 'an array of strings', value);
    return [];
  }
  return value as string[];
}

export const DETECTION_KEYS = [
  'preset',
  'window',
  'thresholds',
  'disable',
  'maxToolCalls',
  'maxRunMs',
  'maxTokens',
  'maxOutputTokens',
  'outputTokenNoticePercent',
  'minContinuations',
  'minContinuationTokens',
  'lowContinuationsToStop',
  'maxTruncations',
  'repeatedAnswerWarning',
  'maxRepeatedAnswers',
  'maxChantingResponses',
  'warningCooldown',
  'maxRuns',
  'runTtlMs',
  'tools',
  'runKeyAttribute',
] as const;

const TIER_KEYS = ['warning', 'critical', 'break'] as const;

function thresholdsOption(
  problems: OptionProblems,
  name: string,
  value: unknown,
  base: Record<TieredDetector, Thresholds>,
): Record<TieredDetector, Thresholds> {
  if (value === undefined) return base;
  if (!isPlainObject(value)) {
    problems.add(name, 'an object keyed by detector name', value);
    return base;
  }
  rejectUnknownKeys(problems, `${name}.`, value, TIERED_DETECTORS);
  const out = { ...base };
  for (const detector of TIERED_DETECTORS) {
    const override = value[detector];
    if (override === undefined) continue;
    const field = `${name}.${detector}`;
    if (!isPlainObject(override)) {
      problems.add(field, 'an object with warning, critical, break', override);
      continue;
    }
    rejectUnknownKeys(problems, `${field}.`, override, TIER_KEYS);
    const merged = { ...base[detector] };
    for (const tier of TIER_KEYS) merged[tier] = integerOption(problems, `${field}.${tier}`, override[tier], merged[tier], 0, 1_000_000);
    const active = TIER_KEYS.map((tier) => merged[tier]).filter((n) => n > 0);
    if (active.some((n, i) => i > 0 && n < active[i - 1]!)) {
      problems.add(field, 'tiers with warning <= critical <= break (0 switches a tier off)', merged);
    }
    out[detector] = merged;
  }
  return out;
}

function toolsOption(problems: OptionProblems, value: unknown, base: Record<TieredDetector, Thresholds>): Record<string, ResolvedToolOptions> {
  if (value === undefined) return {};
  if (!isPlainObject(value)) {
    problems.add('tools', 'an object keyed by tool name', value);
    return {};
  }
  const out: Record<string, ResolvedToolOptions> = {};
  for (const [tool, opts] of Object.entries(value)) {
    const field = `tools.${tool}`;
    if (!isPlainObject(opts)) {
      problems.add(field, 'an object', opts);
      continue;
    }
    rejectUnknownKeys(problems, `${field}.`, opts, ['ignore', 'thresholds', 'ignoreArgs', 'volatileKeys', 'subject']);
    if (opts.ignore !== undefined && typeof opts.ignore !== 'boolean') problems.add(`${field}.ignore`, 'a boolean', opts.ignore);
    const ignoreArgs = stringList(problems, `${field}.ignoreArgs`, opts.ignoreArgs);
    const volatileKeys = stringList(problems, `${field}.volatileKeys`, opts.volatileKeys);
    out[tool] = {
      ignore: opts.ignore === true,
      thresholds: opts.thresholds === undefined ? undefined : thresholdsOption(problems, `${field}.thresholds`, opts.thresholds, base),
      ignoreArgs,
      volatileKeys,
      fingerprint: { ignoreArgs, volatileKeys },
      subject: subjectOption(problems, `${field}.subject`, opts.subject),
    };
  }
  return out;
}

const SUBJECT_KINDS = ['service', 'test', 'file'];

function subjectOption(problems: OptionProblems, field: string, value: unknown): SubjectRule | SubjectFunction | undefined {
  if (value === undefined || value === 'none' || typeof value === 'function') return value as SubjectRule | SubjectFunction | undefined;
  if (isPlainObject(value) && SUBJECT_KINDS.includes(value.kind as string) && typeof value.arg === 'string' && value.arg !== '') {
    rejectUnknownKeys(problems, `${field}.`, value, ['kind', 'arg']);
    return { kind: value.kind as SubjectKind, arg: value.arg };
  }
  problems.add(field, `'none', { kind: ${SUBJECT_KINDS.map((k) => `'${k}'`).join(' | ')}, arg: 'argument name' } or a function of the arguments`, value);
  return undefined;
}

/** Validates detection options and fills in every default. Throws `LoopGuardConfigError` with every problem found. */
export function resolveDetectionOptions(input: DetectionOptions = {}): ResolvedDetectionOptions {
  const problems = new OptionProblems();
  const resolved = checkDetectionOptions(problems, input);
  problems.throwIfAny();
  return resolved;
}

/**
 * The same, adding its problems to `problems` instead of throwing, so that
 * `register()` can report them together with its own (it then checks for
 * unknown keys itself, against all its options). The returned value is only
 * meaningful when no problem was added.
 */
export function checkDetectionOptions(problems: OptionProblems, input: DetectionOptions, rejectUnknown = true): ResolvedDetectionOptions {
  const d = DETECTION_DEFAULTS;
  const r = DETECTION_RANGES;
  const o: Record<string, unknown> = isPlainObject(input as unknown) ? (input as Record<string, unknown>) : {};
  if (!isPlainObject(input as unknown)) problems.add('detection', 'an object', input);
  if (rejectUnknown) rejectUnknownKeys(problems, '', o, DETECTION_KEYS);
  let preset = d.preset;
  if (o.preset !== undefined) {
    if (PRESET_NAMES.includes(o.preset as PresetName)) preset = o.preset as PresetName;
    else problems.addChoice('preset', PRESET_NAMES, o.preset);
  }
  const thresholds = thresholdsOption(problems, 'thresholds', o.thresholds, PRESETS[preset]);
  const disabled: DetectorName[] = [];
  for (const name of stringList(problems, 'disable', o.disable)) {
    if (DETECTOR_NAMES.includes(name as DetectorName)) disabled.push(name as DetectorName);
    else problems.addChoice('disable', DETECTOR_NAMES, name, 'detector names from');
  }
  const runKeyAttribute = o.runKeyAttribute;
  if (runKeyAttribute !== undefined && (typeof runKeyAttribute !== 'string' || runKeyAttribute === '')) {
    problems.add('runKeyAttribute', 'a non-empty attribute name', runKeyAttribute);
  }
  const int = (name: keyof typeof DETECTION_RANGES) => integerOption(problems, name, o[name], d[name], r[name][0], r[name][1]);
  return {
    preset,
    window: int('window'),
    thresholds,
    disabled: new Set(disabled),
    maxToolCalls: int('maxToolCalls'),
    maxRunMs: int('maxRunMs'),
    maxTokens: int('maxTokens'),
    maxOutputTokens: int('maxOutputTokens'),
    outputTokenNoticePercent: int('outputTokenNoticePercent'),
    minContinuations: int('minContinuations'),
    minContinuationTokens: int('minContinuationTokens'),
    lowContinuationsToStop: int('lowContinuationsToStop'),
    maxTruncations: int('maxTruncations'),
    repeatedAnswerWarning: int('repeatedAnswerWarning'),
    maxRepeatedAnswers: int('maxRepeatedAnswers'),
    maxChantingResponses: int('maxChantingResponses'),
    warningCooldown: int('warningCooldown'),
    maxRuns: int('maxRuns'),
    runTtlMs: int('runTtlMs'),
    tools: toolsOption(problems, o.tools, thresholds),
    runKeyAttribute: typeof runKeyAttribute === 'string' && runKeyAttribute !== '' ? runKeyAttribute : d.runKeyAttribute,
  };
}
