/**
 * Volatile parts of results and error messages: values that change on every
 * call even when nothing else did (message ids, receipts, timestamps,
 * durations, pids, per-run temp dirs). Left in, they make identical sends and
 * polls look like progress (DESIGN §7), so they are replaced by fixed markers
 * before hashing. docs/fingerprints.md documents every rule.
 */

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
  'duration', 'elapsed', 'took', 'latency', 'time_taken', 'response_time', 'execution_time', 'query_time',
  'pid', 'execution_count',
]);
/**
 * Suffixes (of the snake_case key) masked at any depth: `server_timestamp`,
 * `event_ts`, `x-request-id`, and measured times (`runDuration`,
 * `p99_latency`, `total_elapsed`).
 */
export const VOLATILE_KEY_SUFFIXES: readonly string[] = Object.freeze(['_timestamp', '_ts', '_request_id', '_duration', '_latency', '_elapsed']);
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
export interface KeyInfo {
  readonly cls: KeyClass;
  readonly form: string;
  /** `id` or `*_id` (snake_case form): a masked value under it is an identifier whose echoes in text are masked too. */
  readonly idKey: boolean;
}
const KEY_CACHE_MAX = 4096;
const keyCache = new Map<string, KeyInfo>();
/** What a key is for masking (cached; json-text.ts keeps it next to the key's encoded text). */
export function keyInfo(key: string): KeyInfo {
  let info = keyCache.get(key);
  if (info === undefined) {
    const form = keyMatchForm(key);
    info = { cls: classifyKey(key), form, idKey: form === 'id' || (form.length > 3 && form.endsWith('_id')) };
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

/**
 * A time of day with seconds and no date (`03:41:07`, `9:05:12.250`): the
 * clock log lines start with (dbt, many CLIs). Without seconds (`10:00`) it
 * is more often data (a meeting, an opening hour) and stays.
 */
const CLOCK_TIME = /(?<![\d:])\d{1,2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?![\d:])/g;

/** Digits around two ':' three apart, as in H:MM:SS (cheap gate before the regex). */
function mayHoldClockTime(s: string): boolean {
  for (let i = s.indexOf(':', 1); i !== -1; i = s.indexOf(':', i + 1)) {
    if (isDigit(s.charCodeAt(i - 1)) && s.charCodeAt(i + 3) === 58 && isDigit(s.charCodeAt(i + 1)) && isDigit(s.charCodeAt(i + 5))) return true;
  }
  return false;
}

/** An IPython/Jupyter execution counter (`In [7]:`, `Cell In[7], line 1`, `Out[7]`): it counts runs, not results. */
const EXECUTION_COUNTER = /\b(In|Out) ?\[\d+\]/g;

/** A '-' with further '-' at +5, +10 and +15, as in 8-4-4-4-12. */
function mayHoldUuid(s: string): boolean {
  for (let i = s.indexOf('-', 8); i !== -1 && i + 28 <= s.length; i = s.indexOf('-', i + 1)) {
    if (s.charCodeAt(i + 5) === 45 && s.charCodeAt(i + 10) === 45 && s.charCodeAt(i + 15) === 45) return true;
  }
  return false;
}

/**
 * A measured duration: a number with a fractional part and a seconds unit
 * (`1.43s`, `54.38 s`, `2.5 sec`), or any number with a sub-second unit
 * (`120ms`, `15 µs`, `3ns`, `40 milliseconds`; `us` only written on,
 * since "2 us" is prose), not glued to a word or a number before it and not
 * followed by a letter or digit. Whole seconds (`30s`,
 * `120s remaining`) are left alone: countdowns, ETAs and retry-after values
 * are written that way, and they are state, not timing noise. Counts ("7
 * passed") never carry a unit.
 */
const MEASURED_DURATION =
  /(?<![\w.])(?:\d+\.\d+ ?(?:s|secs?|seconds?)|\d+(?:\.\d+)?(?:us| ?(?:ms|msecs?|milliseconds?|µs|microseconds?|ns|nanoseconds?)))(?![\p{L}\p{N}_])/gu;
/** Every measured duration has a digit right before its unit's first letter (after at most one space). */
const MAY_HOLD_DURATION = /\d ?[smunµ]/;
/** The duration gate and the temp dirs' `/tmp/`, `/var/folders/` in one scan (most strings have neither). */
const MAY_HOLD_DURATION_OR_TEMP_DIR = /\d ?[smunµ]|\/(?:tmp|var\/folders)\//;

/** A process id in prose: "restarted (pid 41117)", "process 8812". */
const TEXT_PID = /\b(pid|process)(\s*[:=#]?\s*)\d+\b/gi;
/** The token after a request/trace/span/correlation id label: minted per call. */
const LABELLED_ID = /\b((?:request|trace|span|correlation)[ _-]?id)(\s*[:=#]?\s*)[A-Za-z0-9][\w-]{5,}/gi;
/** The label LABELLED_ID starts from: prose naming a span or a request without an id ("batch span exporter") skips the replace. */
const ID_LABEL = /(?:request|trace|span|correlation)[ _-]?id/i;
const DIGIT = /\d/;
/** Any word the pid, finished-in and labelled-id patterns start from. */
const MAY_HOLD_LABELLED_NOISE = /pid|process| in |request|trace|span|correlation/i;
/** A hex token (letters and digits) right after the same words without "id": "(request 0604cd31)". */
const LABELLED_HEX = /\b(request|trace|span|correlation)(\s*[:=#]?\s*)(?=[0-9a-fA-F-]*\d)(?=[0-9a-fA-F-]*[a-fA-F])[0-9a-fA-F][0-9a-fA-F-]{5,}\b/gi;
/**
 * How long a finished build or job took, in whole seconds or minutes and
 * seconds ("BUILD FAILED in 4s", "Done in 12s", "finished in 1m 3s"): the
 * words before it say it is a measurement, not a countdown.
 */
const FINISHED_IN = /\b((?:FAILED|SUCCESSFUL|SUCCEEDED|[Dd]one|[Ff]inished|[Cc]ompleted|[Ss]ucceeded|[Ff]ailed) in )(?:\d+m ?)?\d+(?:\.\d+)?s\b/g;

/**
 * Masks ISO-8601 date-times (`<timestamp>`), clock times with seconds
 * (`<time>`, see {@link CLOCK_TIME}), execution counters (`In[<n>]`, see
 * {@link EXECUTION_COUNTER}), UUIDs (`<uuid>`), per-run temp
 * directories (`<tmpdir>`) and measured durations (`<duration>`, see
 * {@link MEASURED_DURATION}) inside a string, then process ids, finished-in
 * times and labelled request/trace ids. Each pattern runs only when
 * a character it requires is present: this is applied to every string of
 * every result.
 */
export function maskVolatileText(s: string): string {
  // The shortest duration is 3 chars ("1ms"); the shortest temp dir 15, date-time 16.
  if (s.length < 3) return s;
  if (s.length >= 15 && mayHoldTimestamp(s)) s = s.replace(ISO_TIMESTAMP, '<timestamp>');
  if (s.length >= 7 && mayHoldClockTime(s)) s = s.replace(CLOCK_TIME, '<time>');
  if (s.length >= 5 && s.indexOf('[') !== -1) s = replaceFound(s, EXECUTION_COUNTER, '$1[<n>]');
  if (s.length >= 36 && mayHoldUuid(s)) s = s.replace(UUID, '<uuid>');
  if (MAY_HOLD_DURATION_OR_TEMP_DIR.test(s)) {
    if (s.length >= 15 && (s.indexOf('/tmp/') !== -1 || s.indexOf('/var/folders/') !== -1)) s = s.replace(TEMP_DIR, '<tmpdir>');
    if (MAY_HOLD_DURATION.test(s)) s = s.replace(MEASURED_DURATION, '<duration>');
  }
  // After the UUIDs, so a labelled UUID stays a <uuid>. All three are prose ("restarted (pid 4)", "FAILED in 4s",
  // "request id: …"), so strings without a space skip them; one scan decides for the rest.
  if (s.length >= 5 && s.indexOf(' ') !== -1 && MAY_HOLD_LABELLED_NOISE.test(s)) {
    // " in " and "process" are common prose: of the four, only a labelled id can match a string without digits.
    if (!DIGIT.test(s)) return ID_LABEL.test(s) ? s.replace(LABELLED_ID, '$1$2<id>') : s;
    s = replaceFound(s, TEXT_PID, '$1$2<pid>');
    s = replaceFound(s, FINISHED_IN, '$1<duration>');
    s = replaceFound(s, LABELLED_ID, '$1$2<id>');
    s = replaceFound(s, LABELLED_HEX, '$1$2<id>');
  }
  return s;
}

/**
 * `s.replace(re, by)` for a global `re`, searching first: a replace that
 * finds nothing costs several times a search that finds nothing, and some
 * gates let through much that their pattern does not match (the
 * labelled-noise words in "3 results in 2 folders", a `[` that opens a link
 * rather than an execution counter).
 */
function replaceFound(s: string, re: RegExp, by: string): string {
  re.lastIndex = 0;
  return re.test(s) ? s.replace(re, by) : s;
}

/** Identifiers shorter than this are not looked for inside text: "7" or "42" would hit counts and page numbers. */
export const MIN_ECHOED_ID_CHARS = 4;

const isAlnum = (c: number): boolean => (c >= 48 && c <= 57) || ((c | 0x20) >= 97 && (c | 0x20) <= 122);

/**
 * Replaces each occurrence of one of `ids` inside `s` by `<id>`, where it
 * stands as a token of its own: the characters either side are not ASCII
 * letters or digits (`…/pipelines/1880412`, `job 1880412.`, but not
 * `18804120` or `v1880412`).
 */
export function maskEchoedIds(s: string, ids: readonly string[]): string {
  for (const id of ids) {
    let at = s.indexOf(id);
    if (at === -1) continue;
    let out = '';
    let from = 0;
    while (at !== -1) {
      const end = at + id.length;
      if ((at === 0 || !isAlnum(s.charCodeAt(at - 1))) && (end === s.length || !isAlnum(s.charCodeAt(end)))) {
        out += s.slice(from, at) + '<id>';
        from = end;
        at = s.indexOf(id, end);
      } else {
        at = s.indexOf(id, at + 1);
      }
    }
    if (from > 0) s = out + s.slice(from);
  }
  return s;
}

/**
 * The order {@link maskEchoedIds} takes identifiers in: longest first (then
 * by code units), so that "job-1234" is masked whole before "1234" is looked
 * for, whatever order the result's members came in.
 */
export function echoOrder(ids: string[]): string[] {
  return ids.sort((a, b) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0));
}

/** The text of a masked identifier as it would appear in other strings, or null when it is too short to look for. */
export function echoableId(v: unknown): string | null {
  const t = typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'bigint' ? String(v) : null;
  return t !== null && t.length >= MIN_ECHOED_ID_CHARS ? t : null;
}

const HEX_ID = /\b0x[0-9a-fA-F]{6,}\b|\b(?=[0-9a-fA-F]*[0-9])(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{12,}\b/g;
/** A token of 16+ letters, digits, `_` and `-` (`ch_3QKTxYyWIpooyWIMMrds8NNi`), minted when it has 4+ letters and 2+ digits. */
const TOKEN = /(?<![\w-])[A-Za-z0-9_-]{16,}(?![\w-])/g;
const MINTED_TOKEN = /^(?=(?:[^A-Za-z]*[A-Za-z]){4})(?=(?:\D*\d){2})/;
const maskMinted = (token: string): string => (MINTED_TOKEN.test(token) ? '<id>' : token);
const PID = /\b(pid|process)(\s*[:=#]?\s*)\d+/gi;
const DURATION = /\b\d+(?:\.\d+)?\s?(?:ms|milliseconds?|s|secs?|seconds?|us|µs|ns)\b/g;

/**
 * Masks the volatile parts of an error message: everything
 * {@link maskVolatileText} masks, plus hex ids of 12+ digits (mixed digits and
 * letters) or 0x-prefixed, minted ids (tokens of 16+ letters, digits, `_`, `-`
 * with at least four letters and two digits: a charge or attempt id minted
 * per try), numbers after "pid"/"process", and durations (a number with
 * ms/s/sec/seconds/us/ns). Other numbers (ports, line numbers, HTTP codes,
 * counts) are kept: they tell failures apart.
 */
export function maskErrorMessage(message: string): string {
  const s = maskVolatileText(message);
  // Each of the four needs a digit (a minted token two): a message without one (39 % of the corpora's failures) is done.
  // Each pattern is searched before it is replaced, as in maskVolatileText: most messages hold none of them.
  if (!DIGIT.test(s)) return s;
  let m = replaceFound(s, HEX_ID, '<hex>');
  if (holdsMintedToken(m)) m = m.replace(TOKEN, maskMinted);
  m = replaceFound(m, PID, '$1$2<pid>');
  return replaceFound(m, DURATION, '<duration>');
}

/** A character of a minted token (TOKEN's class `[A-Za-z0-9_-]`). */
const isMintedTokenChar = (c: number): boolean => isAlnum(c) || c === 95 || c === 45;

/**
 * Does `s` hold a TOKEN that maskMinted masks: a run of 16 or more of `[A-Za-z0-9_-]` with 4 letters and 2 digits?
 * One pass over the characters: TOKEN's lookbehind retries the run from each of its characters, so a message of long
 * words and paths costs it many times its length, where the token it masks is rare.
 */
function holdsMintedToken(s: string): boolean {
  let run = 0;
  let letters = 0;
  let digits = 0;
  for (let i = 0; i <= s.length; i++) {
    const c = i < s.length ? s.charCodeAt(i) : 0;
    if (isMintedTokenChar(c)) {
      run++;
      if (isDigit(c)) digits++;
      else if (c !== 95 && c !== 45) letters++;
      continue;
    }
    if (run >= 16 && letters >= 4 && digits >= 2) return true;
    run = letters = digits = 0;
  }
  return false;
}

/** What a resultHash masks. */
export interface MaskSettings {
  /** Apply the default key lists and text patterns. */
  readonly defaults: boolean;
  /** Extra keys masked at any depth, from {@link volatileKeySet} (matched as written and by snake_case form). */
  readonly extra: ReadonlySet<string> | null;
}

/** {@link maskedKeyOf}: not masked. */
export const KEPT = 0;
/** {@link maskedKeyOf}: masked. */
export const MASKED = 1;
/** {@link maskedKeyOf}: masked, and an identifier (`id`, `*_id`) whose echoes inside the result's strings are masked too. */
export const MASKED_ID = 2;

/**
 * Whether a member is masked: its key is an extra volatile key, or (with the
 * defaults on) a VOLATILE_KEYS/VOLATILE_KEY_SUFFIXES/DURATION_KEYS key, or a
 * MINTED_KEYS/MINTED_KEY_SUFFIXES key outside arrays. MASKED_ID when the key
 * is also `id` or `*_id` in snake_case form. `info` is the key's {@link keyInfo}.
 */
export function maskedKeyOf(info: KeyInfo, key: string, settings: MaskSettings, inArray: boolean): typeof KEPT | typeof MASKED | typeof MASKED_ID {
  let masked = settings.extra !== null && (settings.extra.has(key) || settings.extra.has(info.form));
  if (!masked && settings.defaults) masked = info.cls === ALWAYS || (info.cls === MINTED && !inArray);
  return !masked ? KEPT : info.idKey ? MASKED_ID : MASKED;
}

/**
 * Values that masking replaces: non-empty strings, numbers, bigints. null,
 * booleans and "" say "absent" or are flags, and are kept; objects under a
 * volatile key are data (a `receipt` object) and are descended into.
 */
export function isMaskedScalar(v: unknown): boolean {
  return (typeof v === 'string' && v !== '') || typeof v === 'number' || typeof v === 'bigint';
}
