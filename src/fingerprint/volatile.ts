/**
 * Volatile parts of results and error messages: values that change on every
 * call even when nothing else did (message ids, receipts, timestamps,
 * durations, pids, per-run temp dirs). Left in, they make identical sends and
 * polls look like progress (DESIGN §7), so they are replaced by fixed markers
 * before hashing. docs/fingerprints.md documents every rule.
 */

import { isRecord } from './record.js';

/** Replaces a masked value; the key stays. */
export const VOLATILE_MARKER = '$lg:volatile';

/**
 * Keys whose scalar values are masked at any depth. Matching is on the key's
 * snake_case form (camelCase split, '-' read as '_', lower-cased), so
 * `ReceiptHandle`, `receipt-handle` and `receipt_handle` all match.
 */
export const VOLATILE_KEYS: readonly string[] = Object.freeze([
  'uuid', 'guid', 'request_id', 'req_id', 'trace_id', 'span_id', 'correlation_id', 'nonce',
  'receipt', 'receipt_handle', 'etag', 'e_tag',
  'timestamp', 'ts', 'time', 'date',
  'duration', 'elapsed', 'took', 'latency', 'time_taken', 'response_time', 'execution_time',
  'pid',
]);
/** Suffixes (of the snake_case key) masked at any depth: `server_timestamp`, `event_ts`, `x-request-id`. */
export const VOLATILE_KEY_SUFFIXES: readonly string[] = Object.freeze(['_timestamp', '_ts', '_request_id']);
/** Duration names that are volatile with a unit suffix (_ms, _s, _sec, _secs, _seconds, _us, _ns, _millis): `duration_ms`, `tookMs`, `runtime_seconds`. */
export const DURATION_KEYS: readonly string[] = Object.freeze([
  'duration', 'elapsed', 'took', 'latency', 'runtime', 'time_taken', 'response_time', 'execution_time',
]);

/**
 * Keys of identifiers and event times minted by the call itself (a job id, a
 * message id, created_at). Masked except inside arrays: array elements are
 * usually listed entities (`orders[].id`), whose ids are the data.
 */
export const MINTED_KEYS: readonly string[] = Object.freeze(['id', 'created', 'updated', 'modified']);
/** Suffixes of minted keys: `job_id`, `messageId` (→ message_id), `created_at`, `updatedAt`. */
export const MINTED_KEY_SUFFIXES: readonly string[] = Object.freeze(['_id', '_at']);

const UNIT_SUFFIX = /_(?:ms|s|sec|secs|seconds|us|ns|millis)$/;
const DURATION_NAMES = new Set(DURATION_KEYS);
const VOLATILE_SET = new Set(VOLATILE_KEYS);
const MINTED_SET = new Set(MINTED_KEYS);

const NOT_VOLATILE = 0;
const ALWAYS = 1;
const MINTED = 2;
type KeyClass = typeof NOT_VOLATILE | typeof ALWAYS | typeof MINTED;

/** snake_case form used for key matching: `MessageId` → `message_id`, `x-request-id` → `x_request_id`, `ETag` → `etag`. */
export function keyMatchForm(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/-/g, '_')
    .toLowerCase()
    .replace(/^_+/, '');
}

function classifyKey(key: string): KeyClass {
  const k = keyMatchForm(key);
  if (k === '') return NOT_VOLATILE;
  if (VOLATILE_SET.has(k)) return ALWAYS;
  for (const suffix of VOLATILE_KEY_SUFFIXES) if (k.endsWith(suffix)) return ALWAYS;
  const base = k.replace(UNIT_SUFFIX, '');
  if (base !== k && DURATION_NAMES.has(base)) return ALWAYS;
  if (MINTED_SET.has(k)) return MINTED;
  for (const suffix of MINTED_KEY_SUFFIXES) if (k.endsWith(suffix) && k.length > suffix.length) return MINTED;
  return NOT_VOLATILE;
}

// Key names repeat across calls; remembering what they are keeps the hot path to one Map lookup.
interface KeyInfo {
  readonly cls: KeyClass;
  readonly form: string;
}
const KEY_CACHE_MAX = 4096;
const keyCache = new Map<string, KeyInfo>();
function keyInfo(key: string): KeyInfo {
  let info = keyCache.get(key);
  if (info === undefined) {
    info = { cls: classifyKey(key), form: keyMatchForm(key) };
    if (keyCache.size >= KEY_CACHE_MAX) keyCache.clear();
    keyCache.set(key, info);
  }
  return info;
}

// Per-tool extra key lists are long-lived; their match sets are built once.
const extraCache = new WeakMap<readonly string[], ReadonlySet<string>>();

/** The set {@link MaskSettings.extra} expects for a list of extra volatile keys: each key as written and in snake_case form. */
export function volatileKeySet(keys: readonly string[] | undefined): ReadonlySet<string> | null {
  if (keys === undefined || !Array.isArray(keys) || keys.length === 0) return null;
  let set = extraCache.get(keys);
  if (set === undefined) {
    const s = new Set<string>();
    for (const k of keys) {
      if (typeof k !== 'string') continue;
      s.add(k);
      s.add(keyMatchForm(k));
    }
    set = s;
    extraCache.set(keys, set);
  }
  return set;
}

/** ISO-8601 date-time; the time part is required (a bare date is usually data). */
const ISO_TIMESTAMP = /\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?/g;
const UUID = /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/g;
/** mktemp (/tmp/tmp.XXXXXXXXXX), Python tempfile (/tmp/tmpXXXXXXXX), pytest (/tmp/pytest-of-USER/pytest-N), macOS per-user temp. */
const TEMP_DIR = /(?:\/private)?\/(?:var\/)?tmp\/(?:tmp[._-]?[A-Za-z0-9_]{6,}|pytest-of-[^/\s]+\/pytest-\d+)|\/var\/folders\/[\w+-]+\/[\w+-]+\/T\/[\w.-]+/g;

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/** A ':' with the shape of YYYY-MM-DD[T ]HH: before it (cheap gate before the regex: URLs have ':' too). */
function mayHoldTimestamp(s: string): boolean {
  for (let i = s.indexOf(':', 13); i !== -1; i = s.indexOf(':', i + 1)) {
    const sep = s.charCodeAt(i - 3);
    if (isDigit(s.charCodeAt(i - 1)) && isDigit(s.charCodeAt(i - 2)) && (sep === 84 || sep === 32) && s.charCodeAt(i - 6) === 45) return true;
  }
  return false;
}

/** A '-' with further '-' at +5, +10 and +15, as in 8-4-4-4-12. */
function mayHoldUuid(s: string): boolean {
  for (let i = s.indexOf('-', 8); i !== -1 && i + 28 <= s.length; i = s.indexOf('-', i + 1)) {
    if (s.charCodeAt(i + 5) === 45 && s.charCodeAt(i + 10) === 45 && s.charCodeAt(i + 15) === 45) return true;
  }
  return false;
}

/**
 * Masks ISO-8601 date-times (`<timestamp>`), UUIDs (`<uuid>`) and per-run
 * temp directories (`<tmpdir>`) inside a string. Each pattern runs only when
 * a character it requires is present: this is applied to every string of
 * every result.
 */
export function maskVolatileText(s: string): string {
  // Shortest match is a 15-char temp dir or a 16-char date-time.
  if (s.length < 15) return s;
  if (mayHoldTimestamp(s)) s = s.replace(ISO_TIMESTAMP, '<timestamp>');
  if (mayHoldUuid(s)) s = s.replace(UUID, '<uuid>');
  if (s.indexOf('/tmp/') !== -1 || s.indexOf('/var/folders/') !== -1) s = s.replace(TEMP_DIR, '<tmpdir>');
  return s;
}

const HEX_ID = /\b0x[0-9a-fA-F]{6,}\b|\b(?=[0-9a-fA-F]*[0-9])(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{12,}\b/g;
const PID = /\b(pid|process)(\s*[:=#]?\s*)\d+/gi;
const DURATION = /\b\d+(?:\.\d+)?\s?(?:ms|milliseconds?|s|secs?|seconds?|us|µs|ns)\b/g;

/**
 * Masks the volatile parts of an error message: everything
 * {@link maskVolatileText} masks, plus hex ids of 12+ digits (mixed digits and
 * letters) or 0x-prefixed, numbers after "pid"/"process", and durations
 * (a number with ms/s/sec/seconds/us/ns). Other numbers (ports, line numbers,
 * HTTP codes, counts) are kept: they tell failures apart.
 */
export function maskErrorMessage(message: string): string {
  return maskVolatileText(message)
    .replace(HEX_ID, '<hex>')
    .replace(PID, '$1$2<pid>')
    .replace(DURATION, '<duration>');
}

/** What a resultHash masks. */
export interface MaskSettings {
  /** Apply the default key lists and text patterns. */
  readonly defaults: boolean;
  /** Extra keys masked at any depth, from {@link volatileKeySet} (matched as written and by snake_case form). */
  readonly extra: ReadonlySet<string> | null;
}

/**
 * Whether a member is masked: its key is an extra volatile key, or (with the
 * defaults on) a VOLATILE_KEYS/VOLATILE_KEY_SUFFIXES/DURATION_KEYS key, or a
 * MINTED_KEYS/MINTED_KEY_SUFFIXES key outside arrays.
 */
export function isMaskedKey(key: string, settings: MaskSettings, inArray: boolean): boolean {
  const info = keyInfo(key);
  if (settings.extra !== null && (settings.extra.has(key) || settings.extra.has(info.form))) return true;
  if (!settings.defaults) return false;
  return info.cls === ALWAYS || (info.cls === MINTED && !inArray);
}

/**
 * Values that masking replaces: non-empty strings, numbers, bigints. null,
 * booleans and "" say "absent" or are flags, and are kept; objects under a
 * volatile key are data (a `receipt` object) and are descended into.
 */
export function isMaskedScalar(v: unknown): boolean {
  return (typeof v === 'string' && v !== '') || typeof v === 'number' || typeof v === 'bigint';
}

const MAX_DEPTH = 64;

/**
 * The masking as a value: `value` itself when nothing in it is volatile,
 * else a copy with volatile scalars replaced by {@link VOLATILE_MARKER} and
 * volatile text replaced by `<timestamp>`, `<uuid>`, `<tmpdir>`. resultHash
 * does not call this (it masks inside its one canonicalisation pass); this
 * form is for callers that want to see or time the masked result, and tests
 * hold the two to the same hashes for JSON data. Never throws.
 */
export function maskVolatile(value: unknown, settings: MaskSettings): unknown {
  if (!settings.defaults && settings.extra === null) return value;
  try {
    return maskValue(value, settings, false, []);
  } catch {
    return value;
  }
}

function maskValue(v: unknown, settings: MaskSettings, inArray: boolean, ancestors: object[]): unknown {
  if (typeof v === 'string') return settings.defaults ? maskVolatileText(v) : v;
  if (typeof v !== 'object' || v === null) return v;
  if (ancestors.length >= MAX_DEPTH || ancestors.includes(v)) return v;
  if (Array.isArray(v)) {
    ancestors.push(v);
    let copy: unknown[] | null = null;
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i];
      const m = maskValue(item, settings, true, ancestors);
      if (copy !== null) copy.push(m);
      else if (m !== item) {
        copy = v.slice(0, i);
        copy.push(m);
      }
    }
    ancestors.pop();
    return copy ?? v;
  }
  if (!isRecord(v)) return v;
  ancestors.push(v);
  const src = v as Record<string, unknown>;
  const keys = Object.keys(src);
  let copy: Record<string, unknown> | null = null;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    const item = src[k];
    let m: unknown;
    if (item !== undefined && isMaskedScalar(item) && isMaskedKey(k, settings, inArray)) m = VOLATILE_MARKER;
    else m = maskValue(item, settings, inArray, ancestors);
    if (copy !== null) copy[k] = m;
    else if (m !== item) {
      copy = Object.create(null) as Record<string, unknown>;
      for (let j = 0; j < i; j++) copy[keys[j] as string] = src[keys[j] as string];
      copy[k] = m;
    }
  }
  ancestors.pop();
  return copy ?? v;
}
