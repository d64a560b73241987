/**
 * Fingerprints of tool calls (DESIGN §2): what the history stores for each
 * call so detectors can compare calls and results without keeping them.
 * docs/fingerprints.md is the reference for every rule here.
 */
import type { Outcome } from '../types.js';
import type { FailureKind } from '../types.js';
import { itemSetHash } from './item-set.js';
import { canonicalize, canonicalizeArgs, canonicalizeMasked, canonicalizeWithout, effectiveMaxBytes, hashValue } from './canonical.js';
import { errorClass, type ErrorClass } from './error-class.js';
import { failureKind } from './failure-kind.js';
import { comparableByNearness, textSketch } from './sketch.js';
import { wordSignature } from './words.js';
import { hashText } from './hash.js';
import { keySet, type FingerprintOptions } from './options.js';
import { parseMaybeJson } from './outcome.js';
import { maskEchoedIds, maskErrorMessage, VOLATILE_MARKER, volatileKeySet, type MaskSettings } from './volatile.js';
import { argumentEchoes } from './argument-echoes.js';

export { canonicalize, hashValue, DEFAULT_MAX_BYTES, MAX_DEPTH, MAX_NODES } from './canonical.js';
export { hashText } from './hash.js';
export { handlesIn, pendingAnswerShape, threadHandles } from './fresh-handles.js';
export { quotesArgs, readReceipt, RECEIPT_MAX_CHARS, type ReceiptReading } from './receipt.js';
export { textSketch, sketchSimilarity, SKETCH_BINS, MIN_NEAR_SHINGLES, NEAR_SIMILARITY } from './sketch.js';
export { failureKind } from './failure-kind.js';
export { wordSignature, WORDS_MAX_CHARS } from './words.js';
export { pageStateHash, PAGE_HEADER_MAX_CHARS } from './page-state.js';
export { normalizeText } from './normalize.js';
export {
  classifyResult,
  parseMaybeJson,
  STATUS_CODE_KEYS,
  STATUS_TEXT_KEYS,
  PENDING_STATUSES,
  EMPTY_STATUSES,
  ERROR_STATUSES,
  EMPTY_META_KEYS,
} from './outcome.js';
export { errorClass, ERRNO_NAMES, ERRNO_PHRASES, NETWORK_ERRNOS, HTTP_REASON_PHRASES, type ErrorClass } from './error-class.js';
export {
  VOLATILE_KEYS,
  VOLATILE_KEY_SUFFIXES,
  DURATION_KEYS,
  MINTED_KEYS,
  MINTED_KEY_SUFFIXES,
  VOLATILE_MARKER,
  MIN_ECHOED_ID_CHARS,
  maskVolatileText,
  maskErrorMessage,
} from './volatile.js';
export { validateFingerprintOptions, type FingerprintOptions } from './options.js';
export type { Outcome };

export interface ArgsFingerprint {
  /** 16 hex: SHA-256 of the canonical text of the arguments. */
  argsHash: string;
  /** 16 hex: the same over the normalised arguments; the very same string as argsHash when normalisation changes nothing. */
  normArgsHash: string;
  /** Similarity sketch of the canonical text (sketch.ts); undefined when the arguments hold no free text. */
  argsSketch: string | undefined;
  /** The canonical text argsHash is the hash of, for a run that compares a call's arguments with its previous ones (src/listed-items.ts). */
  argsText: string;
}

/** A top-level string holding a JSON object/array stands for that JSON (span attributes carry arguments and results as text). */
function asJsonValue(value: unknown, maxBytes: number): unknown {
  return typeof value === 'string' && value.length <= maxBytes ? parseMaybeJson(value) : value;
}

/** Hashes of a call's arguments: raw (argsHash) and conservatively normalised (normArgsHash). Never throws. */
export function fingerprintArgs(args: unknown, opts?: FingerprintOptions): ArgsFingerprint {
  const maxBytes = effectiveMaxBytes(opts?.maxBytes);
  const { text, normalized, mayHoldFreeText } = canonicalizeArgs(asJsonValue(args, maxBytes), maxBytes, keySet(opts?.ignoreArgs));
  const argsHash = hashText(text);
  return {
    argsHash,
    normArgsHash: normalized === null || normalized === text ? argsHash : hashText(normalized),
    argsSketch: mayHoldFreeText ? textSketch(text) : undefined,
    argsText: text,
  };
}

/**
 * Word signature (words.ts) of the arguments' canonical text, or undefined
 * when their sketch (`argsSketch`, from fingerprintArgs) is comparable: long
 * text is compared by its sketch, a short question by its words. Computed
 * apart from fingerprintArgs because only calls near a call that found
 * nothing need it. Never throws.
 */
export function argsWordSignature(args: unknown, argsSketch: string | undefined, opts?: FingerprintOptions): string | undefined {
  if (argsSketch !== undefined && comparableByNearness(argsSketch)) return undefined;
  const maxBytes = effectiveMaxBytes(opts?.maxBytes);
  return wordSignature(canonicalizeWithout(asJsonValue(args, maxBytes), maxBytes, keySet(opts?.ignoreArgs)));
}

/**
 * The arguments' shape (argsShapeHash: digits folded) when their sketch
 * (`argsSketch`, from fingerprintArgs) is comparable, else undefined: long
 * arguments near one another by sketch may still differ only in a number (a
 * sweep over pages), which their shapes tell. Short arguments have a word
 * signature, where numbers are names. Never throws.
 */
export function argsDigitShape(args: unknown, argsSketch: string | undefined, opts?: FingerprintOptions): string | undefined {
  return argsSketch !== undefined && comparableByNearness(argsSketch) ? argsShapeHash(args, opts) : undefined;
}

const DEFAULT_MASK: MaskSettings = Object.freeze({ defaults: true, extra: null });
const NO_DEFAULT_MASK: MaskSettings = Object.freeze({ defaults: false, extra: null });

/** Hash of a call's result with volatile fields masked (see VOLATILE_KEYS, maskVolatileText). Never throws. */
export function resultHash(result: unknown, opts?: FingerprintOptions): string {
  return resultDigest(result, opts).hash;
}

/**
 * Hash of the "shape" of a call's arguments: their canonical text (with
 * `ignoreArgs` members dropped) where every run of ASCII digits is one `0`,
 * except inside ISO dates. Made-up identifiers that differ only in digits
 * (A-10490, A-10491) share a shape; different words, names and days
 * (2026-12-01, 2026-12-02: a sweep over a calendar is exploration) do not.
 * Meant for calls that found nothing, to tell guessing from exploration.
 * Never throws.
 */
export function argsShapeHash(args: unknown, opts?: FingerprintOptions): string {
  const maxBytes = effectiveMaxBytes(opts?.maxBytes);
  return hashText(canonicalizeWithout(asJsonValue(args, maxBytes), maxBytes, keySet(opts?.ignoreArgs)).replace(DIGIT_RUNS_OUTSIDE_DATES, foldDigits));
}
/**
 * Hash of the "subject shape" of a call's arguments: values that name a
 * thing become placeholders — single words (a city, a SKU, a host, a date),
 * proper names of several words (a person, a company, a case citation, an
 * address), the file name of a file path (its folder stays), every number —
 * and so does every run of digits inside other text (a month in a command
 * line, a page in a query); the words of free text stay. Two calls with one
 * subject shape ask the same kind of question about different things
 * (weather in Lisbon, then Faro; the governing law of one NDA, then
 * another); calls whose shapes differ reword the question (synonyms, a path
 * spelt three ways). Never throws.
 */
export function subjectShapeHash(args: unknown, opts?: FingerprintOptions): string {
  const maxBytes = effectiveMaxBytes(opts?.maxBytes);
  try {
    return hashValue(subjectShape(asJsonValue(args, maxBytes), 0), maxBytes);
  } catch {
    return argsShapeHash(args, opts);
  }
}

const SUBJECT = '$lg:subject';
const NAMING_WORD = /^[^\s/.]+$/;
const DIGIT_RUNS = /[0-9]+/g;
/**
 * A proper name: up to sixteen words, each starting with a capital or a digit
 * (after an opening bracket or quote), or a connector (`v.`, `of`, `&`, `de`…),
 * two of them capitalised words (`Maria`, `Park`): a person, a company, a
 * case citation, a street address. Questions are written in lower case, and
 * codes in capitals and digits (`Q3 FY2025`) are search text, not names.
 */
const NAME_WORD = String.raw`(?:[("'“]?[\p{Lu}\p{N}]\S*|v\.?|vs\.?|of|and|&|de|da|di|du|la|le|van|von|der|den|-|–)`;
const PROPER_NAME = new RegExp(String.raw`^${NAME_WORD}(?:\s+${NAME_WORD}){0,15}$`, 'u');
const CAPITALISED_WORD = /(?:^|\s)[("'“]?\p{Lu}\p{Ll}/gu;
/**
 * A file path: its folder names what kind of thing it is, its file name which
 * one (`Contracts/NDAs/NDA - Acme.pdf`). URLs are not: guessing page names on
 * a site asks one question of many addresses.
 */
const FILE_PATH = /^(?!\w+:\/\/)(.*)\/[^/]+\.[A-Za-z0-9]{1,6}$/;

function isProperName(value: string): boolean {
  return value.length <= 256 && (value.match(CAPITALISED_WORD)?.length ?? 0) >= 2 && PROPER_NAME.test(value);
}

function subjectOfText(value: string): string {
  if (NAMING_WORD.test(value) || isProperName(value)) return SUBJECT;
  const file = FILE_PATH.exec(value);
  return file !== null ? `${file[1]!.replace(DIGIT_RUNS, '0')}/${SUBJECT}` : value.replace(DIGIT_RUNS, '0');
}

function subjectShape(value: unknown, depth: number): unknown {
  if (typeof value === 'number') return 0;
  if (typeof value === 'string') return subjectOfText(value);
  if (typeof value !== 'object' || value === null || depth >= 16) return value;
  if (Array.isArray(value)) return value.map((v) => subjectShape(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = subjectShape(v, depth + 1);
  return out;
}

/**
 * Does the answer name what the arguments named? True when a word (two or
 * more letters and digits, one of them a letter; case folded) of a value
 * that the subject shape makes a placeholder (a one-word value, a proper
 * name, a file's name) is a word of `resultText` (the masked canonical
 * result text). A tool that gives one answer to
 * several things (a check that passes, a send that is queued) cannot name
 * each of them; one that answers a name respelled (`Acme Corp`, `Acme
 * Corporation EMEA`) with the record it found names it in every answer.
 * With `changed` (the stretch of the arguments' canonical text that differs
 * from the tool's previous call, listed-items changedSpan), only the values
 * sharing a word with it are read: a value every call repeats (the payer
 * checked for each patient) is no name respelled, however often the answer
 * names it.
 * Results longer than ECHO_MAX_CHARS are not read. Never throws.
 */
export function answerNamesSubject(args: unknown, resultText: string, opts?: FingerprintOptions, changed?: string): boolean {
  if (resultText.length > ECHO_MAX_CHARS) return false;
  try {
    const names: string[] = [];
    subjectNames(asJsonValue(args, effectiveMaxBytes(opts?.maxBytes)), 0, names);
    if (names.length === 0) return false;
    const said = new Set(resultText.toLowerCase().match(ECHO_WORD));
    const moved = changed === undefined ? undefined : new Set(changed.toLowerCase().match(ECHO_WORD));
    for (const name of names) {
      const words = name.toLowerCase().match(ECHO_WORD) ?? [];
      // A value the call kept from its tool's previous call (the payer of every patient) is not what it asked about.
      if (moved !== undefined && !words.some((w) => moved.has(w))) continue;
      for (const w of words) if (w.length >= 2 && said.has(w)) return true;
    }
    return false;
  } catch {
    return false;
  }
}

/** Results read for an echo at most this long: a record or a message, not a page. */
export const ECHO_MAX_CHARS = 4_096;
const ECHO_WORD = /[\p{L}\p{N}]*\p{L}[\p{L}\p{N}]*/gu;

/** The values subjectShape makes placeholders (a file path: its file name), in walk order. */
function subjectNames(value: unknown, depth: number, out: string[]): void {
  if (typeof value === 'string') {
    const shape = subjectOfText(value);
    if (shape === SUBJECT) out.push(value);
    else if (shape.endsWith(`/${SUBJECT}`)) out.push(value.slice(value.lastIndexOf('/') + 1));
    return;
  }
  if (typeof value !== 'object' || value === null || depth >= 16) return;
  for (const v of Array.isArray(value) ? value : Object.values(value as Record<string, unknown>)) subjectNames(v, depth + 1, out);
}

/** A date (kept whole: its digits name a day, not a guess) or a run of digits (folded). */
const DIGIT_RUNS_OUTSIDE_DATES = /\d{4}-\d{2}-\d{2}|[0-9]+/g;
const foldDigits = (run: string): string => (run.length === 10 && run.charCodeAt(4) === 45 ? run : '0');

/** Results whose canonical text is at least this long say something: two different calls answered by the same one are suspicious. */
export const INFORMATIVE_RESULT_CHARS = 64;

export interface ResultDigest {
  hash: string;
  /** The result says something specific (long enough to be no bare acknowledgement). */
  informative: boolean;
  /** Similarity sketch of the masked canonical text; undefined when it holds no free text. */
  sketch: string | undefined;
  /** The masked canonical text itself (what was hashed), for a run that keeps what it was shown (src/listed-items.ts). */
  text: string;
  /** The order-free hash of what the result lists (item-set.ts), or 0 when it lists nothing. */
  items: number;
}

/** The result hash, and whether the result is informative: one canonical walk for both. Never throws. */
export function resultDigest(result: unknown, opts?: FingerprintOptions): ResultDigest {
  const maxBytes = effectiveMaxBytes(opts?.maxBytes);
  const extra = volatileKeySet(opts?.volatileKeys);
  const defaults = opts?.maskVolatile !== false;
  const mask = extra === null ? (defaults ? DEFAULT_MASK : NO_DEFAULT_MASK) : { defaults, extra };
  const value = asJsonValue(result, maxBytes);
  const { text, maskedValues, mayHoldFreeText } = canonicalizeMasked(value, maxBytes, mask);
  // A receipt of fresh ids and timestamps says nothing: masked values do not count towards being informative.
  return {
    hash: hashText(text),
    informative: text.length - maskedValues * MASK_TOKEN.length >= INFORMATIVE_RESULT_CHARS,
    sketch: mayHoldFreeText ? textSketch(text) : undefined,
    text,
    items: itemSetHash(value),
  };
}

const MASK_TOKEN = JSON.stringify(VOLATILE_MARKER);

/** Members that hold an identifier: `id`, `uuid`, `sid` (Twilio), `*_id`, `*Id`, `*_sid`, `*Sid`, `*_handle`, `*Handle`. */
const ID_KEY = /^(?:id|uuid|sid|.*(?:_id|Id|_uuid|Uuid|_sid|Sid|_handle|Handle))$/;
const UUID_IN_TEXT = /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/;
/**
 * A value with the look of a minted identifier: one token of 16 or more
 * letters, digits and `_ . : -`, with at least four of each of letters and
 * digits (`CA554ec9c85c17328c8ad0644761fac2d0`, `ch_3QKa81Fz2rT0pLm5`).
 * Names, phrases, paths, URLs, phone numbers and dates do not have it.
 */
const MINTED_VALUE = /^(?=(?:[^A-Za-z]*[A-Za-z]){4})(?=(?:\D*\d){4})[A-Za-z0-9_.:-]{16,}$/;

/**
 * Do these arguments name a thing by its identifier (an identifier member,
 * a UUID or a minted-looking token as a value, at the top level)? A call
 * answering "pending" with such arguments checks on a job that exists —
 * waiting — where the same call without one submits the work again. Never
 * throws.
 */
export function namesAnIdentifier(args: unknown): boolean {
  try {
    const value = typeof args === 'string' ? parseMaybeJson(args) : args;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if ((typeof v === 'string' || typeof v === 'number') && ID_KEY.test(key)) return true;
      if (typeof v === 'string' && v.length >= 16 && v.length <= 256 && (MINTED_VALUE.test(v) || UUID_IN_TEXT.test(v))) return true;
    }
  } catch {
    // A hostile getter: not an identifier we can rely on.
  }
  return false;
}

/** Error messages longer than this are masked and classified in their head only (bounds the regex work). */
const MASKED_MESSAGE_CHARS = 65_536;

/** What the history keeps of a failure. */
export interface FailureDigest {
  hash: string;
  /** Similarity sketch of the same canonical text: a stray newline in an identical traceback stays the same failure. */
  sketch: string | undefined;
  failure: FailureKind;
}

/**
 * Hash of a failure: canonical text of {"$lg:failure": [errorType, what]}
 * with the type trimmed and `what` the error class of the message when one is
 * recognisable (errorClass: errno, HTTP status, quoted-name shape), else the
 * trimmed message with its volatile parts masked (maskErrorMessage); an
 * absent part is null. Echoes of the call's own argument values in the
 * message (`args`, see argumentEchoes) are masked first. Never throws.
 */
export function errorHash(errorType: string | undefined, message: string | undefined, args?: unknown): string {
  return errorDigest(errorType, message, args).hash;
}

/** How far back from a failure's end its last line is looked for: a longer last line gives no tail (bounds the work). */
export const FAILURE_TAIL_CHARS = 4_096;

/**
 * The last line of a trimmed failure text of two lines or more, trimmed: where
 * a failure says what went wrong (a traceback's exception, a test run's
 * summary, a build's verdict), while its head is often a banner every command
 * of the environment prints. undefined for a one-line text, or one whose last
 * line starts more than FAILURE_TAIL_CHARS from its end.
 */
export function failureTail(trimmed: string): string | undefined {
  const from = trimmed.length > FAILURE_TAIL_CHARS ? trimmed.length - FAILURE_TAIL_CHARS : 0;
  for (let i = trimmed.length - 1; i >= from; i--) {
    if (trimmed.charCodeAt(i) === 10) return i === 0 ? undefined : trimmed.slice(i + 1).trim();
  }
  return undefined;
}

/** The failure's hash (see errorHash), its sketch and its kind (failure-kind.ts); `retryable` is the tool's own word. Never throws. */
export function errorDigest(errorType: string | undefined, message: string | undefined, args?: unknown, retryable?: boolean): FailureDigest {
  const type = typeof errorType === 'string' ? errorType.trim() : null;
  let what: unknown = null;
  let cls: ErrorClass | null = null;
  if (typeof message === 'string') {
    try {
      const trimmed = message.trim();
      const echoes = args === undefined ? [] : argumentEchoes(args);
      const m = echoes.length === 0 ? trimmed : maskEchoedIds(trimmed, echoes);
      const long = m.length > MASKED_MESSAGE_CHARS;
      const masked = maskErrorMessage(long ? m.slice(0, MASKED_MESSAGE_CHARS) : m);
      cls = errorClass(masked);
      what = cls ?? (long ? masked + m.slice(MASKED_MESSAGE_CHARS) : masked);
    } catch {
      // Only a runtime failure (out of memory) lands here; the raw message still tells failures apart.
      what = message;
    }
  }
  const text = canonicalize({ '$lg:failure': [type, what] });
  return {
    hash: hashText(text),
    sketch: textSketch(text, typeof what === 'string' ? failureTail(what) : undefined),
    failure: failureKind(type, typeof message === 'string' ? message : null, cls, retryable),
  };
}
