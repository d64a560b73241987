import type { Outcome } from '../types.js';

/**
 * Outcome inference from a tool's result, for tools that do not say it
 * themselves. The rules are deliberately narrow: a false "error" would feed
 * retry-storm detection, a false "empty" the empty-streak detector.
 * docs/fingerprints.md has the table.
 */

/** JSON text longer than this is not parsed (keeps span-attribute handling bounded). */
export const MAX_PARSE_CHARS = 16 * 1024 * 1024;

/**
 * For span attributes that hold JSON text: the parsed value when `text` is a
 * JSON object or array, else `text` itself. Scalars ("42", "true", "null")
 * stay strings so that a tool returning the text "42" keeps hashing as text.
 * Never throws.
 */
export function parseMaybeJson(text: string): unknown {
  if (typeof text !== 'string' || text.length < 2 || text.length > MAX_PARSE_CHARS) return text;
  const open = firstNonSpace(text);
  if (open !== 123 /* { */ && open !== 91 /* [ */) return text;
  const close = lastNonSpace(text);
  if (close !== (open === 123 ? 125 : 93)) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function firstNonSpace(s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return c;
  }
  return -1;
}

function lastNonSpace(s: string): number {
  for (let i = s.length - 1; i >= 0; i--) {
    const c = s.charCodeAt(i);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return c;
  }
  return -1;
}

/** Keys read as an HTTP-like status code (number or numeric string). */
export const STATUS_CODE_KEYS: readonly string[] = Object.freeze(['status', 'status_code', 'statusCode', 'http_status', 'httpStatus']);
/** Keys read as a textual status. */
export const STATUS_TEXT_KEYS: readonly string[] = Object.freeze(['status', 'state']);
/** Textual statuses (lower-cased, spaces and '-' read as '_') meaning "accepted, not finished". */
export const PENDING_STATUSES: readonly string[] = Object.freeze([
  'pending', 'queued', 'in_progress', 'inprogress', 'accepted', 'processing', 'running', 'submitted', 'scheduled',
]);
/** Textual statuses meaning "succeeded, found nothing". */
export const EMPTY_STATUSES: readonly string[] = Object.freeze([
  'not_found', 'notfound', 'none', 'no_results', 'no_result', 'no_match', 'no_matches', 'no_data', 'empty', 'nothing_found',
]);
/** Textual statuses meaning "this call failed" (JSend-style envelopes). */
export const ERROR_STATUSES: readonly string[] = Object.freeze(['error']);
/**
 * Members ignored when deciding whether an object is "all empty": echoes and
 * paging metadata that come with an empty answer ({query, results: [], total: 0}).
 */
export const EMPTY_META_KEYS: readonly string[] = Object.freeze([
  'status', 'state', 'ok', 'success', 'message', 'query', 'q', 'total', 'total_count', 'totalCount', 'count',
  'page', 'per_page', 'page_size', 'pageSize', 'limit', 'offset', 'cursor', 'next', 'next_cursor', 'nextCursor',
  'next_page', 'nextPage', 'next_page_token', 'nextPageToken', 'has_more', 'hasMore', 'took', 'took_ms',
]);

const PENDING_SET = new Set(PENDING_STATUSES);
const EMPTY_SET = new Set(EMPTY_STATUSES);
const ERROR_SET = new Set(ERROR_STATUSES);
const META_SET = new Set(EMPTY_META_KEYS);
const MAX_EMPTY_DEPTH = 4;

/**
 * Infers the outcome class of a result:
 * - `empty`: null/undefined, "" (or only whitespace), [], {}, an empty Map/Set
 *   or byte buffer; an object whose members (ignoring {@link EMPTY_META_KEYS})
 *   are all empty and at least one is an empty collection or null
 *   ({hits: []}, {results: [], total: 0}); a status/state in {@link EMPTY_STATUSES};
 *   status code 204.
 * - `error`: status code 400–599 under a {@link STATUS_CODE_KEYS} key; a
 *   non-empty `error` member; `ok: false` or `success: false` with a non-empty
 *   `error` or `message`; status "error"; MCP `isError: true`.
 * - `pending`: a status/state in {@link PENDING_STATUSES}; status code 202.
 * - otherwise `ok`. Exit codes are never read: a failing test run is a result.
 * JSON text (a string holding an object or array) is parsed first; an MCP
 * CallToolResult ({content: [...]}) is judged by its single text item.
 */
export function classifyResult(result: unknown): Outcome {
  try {
    return classify(result, 0);
  } catch {
    // A throwing getter or proxy: nothing reliable to say.
    return 'ok';
  }
}

function classify(result: unknown, depth: number): Outcome {
  if (result === null || result === undefined) return 'empty';
  if (typeof result === 'string') {
    if (result.trim() === '') return 'empty';
    const parsed = depth < 2 ? parseMaybeJson(result) : result;
    return parsed === result ? 'ok' : classify(parsed, depth + 1);
  }
  if (typeof result !== 'object') return 'ok';
  if (Array.isArray(result)) return result.length === 0 ? 'empty' : 'ok';
  if (result instanceof Map || result instanceof Set) return result.size === 0 ? 'empty' : 'ok';
  if (ArrayBuffer.isView(result)) return result.byteLength === 0 ? 'empty' : 'ok';
  if (result instanceof ArrayBuffer) return result.byteLength === 0 ? 'empty' : 'ok';
  const obj = result as Record<string, unknown>;
  const keys = Object.keys(obj);
  if (keys.length === 0) return 'empty';

  const inBand = mayStateOutcome(obj, keys) ? inBandOutcome(obj) : null;
  if (inBand !== null) return inBand;
  if (depth < 2) {
    const mcp = mcpOutcome(obj, depth);
    if (mcp !== null) return mcp;
  }
  return isAllEmpty(obj, keys, 0) ? 'empty' : 'ok';
}

/** Every member {@link inBandOutcome} reads. */
const IN_BAND_KEYS = new Set(['isError', 'error', 'ok', 'success', ...STATUS_CODE_KEYS, ...STATUS_TEXT_KEYS]);

/**
 * Can the result state its outcome? A plain object (from JSON) only through
 * its own keys, checked in one pass: probing a dozen absent members costs
 * more than the rest of classifying. Other objects may inherit them (getters
 * of a class), so they are always read.
 */
function mayStateOutcome(obj: object, keys: readonly string[]): boolean {
  const proto = Object.getPrototypeOf(obj);
  if (proto !== Object.prototype && proto !== null) return true;
  for (let i = 0; i < keys.length; i++) if (IN_BAND_KEYS.has(keys[i]!)) return true;
  return false;
}

/** Outcome stated inside the result (status codes, status words, error members), or null. */
function inBandOutcome(obj: Record<string, unknown>): Outcome | null {
  if (obj.isError === true) return 'error';
  if (isPresent(obj.error)) return 'error';
  if ((obj.ok === false || obj.success === false) && isPresent(obj.message)) return 'error';
  for (const key of STATUS_CODE_KEYS) {
    const code = statusCode(obj[key]);
    if (code === null) continue;
    if (code >= 400 && code <= 599) return 'error';
    if (code === 202) return 'pending';
    if (code === 204) return 'empty';
  }
  for (const key of STATUS_TEXT_KEYS) {
    const v = obj[key];
    if (typeof v !== 'string') continue;
    const word = v.trim().toLowerCase().replace(/[\s-]+/g, '_');
    if (ERROR_SET.has(word)) return 'error';
    if (PENDING_SET.has(word)) return 'pending';
    if (EMPTY_SET.has(word)) return 'empty';
  }
  return null;
}

/** HTTP-like status code held by a number or a numeric string (100–599), else null. */
function statusCode(v: unknown): number | null {
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && /^\s*\d{3}\s*$/.test(v)) n = Number(v);
  else return null;
  return Number.isInteger(n) && n >= 100 && n <= 599 ? n : null;
}

/** A member that says something: not null/undefined/false, not an empty string/array/object. */
function isPresent(v: unknown): boolean {
  if (v === null || v === undefined || v === false) return false;
  if (typeof v === 'string') return v.trim() !== '';
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

/** MCP CallToolResult: {content: [{type: 'text', text}], isError?}. Judged by its text when it has exactly one text item. */
function mcpOutcome(obj: Record<string, unknown>, depth: number): Outcome | null {
  const content = obj.content;
  if (!Array.isArray(content) || content.length === 0) return null;
  let text: string | null = null;
  for (const item of content) {
    if (typeof item !== 'object' || item === null || typeof (item as { type?: unknown }).type !== 'string') return null;
    if ((item as { type: string }).type !== 'text') return 'ok';
    if (text !== null) return 'ok';
    const t = (item as { text?: unknown }).text;
    if (typeof t !== 'string') return null;
    text = t;
  }
  return text === null ? null : classify(text, depth + 1);
}

/**
 * True when every non-meta member is empty ("", 0, false, null, [], {}, or an
 * object that is itself all empty) and at least one is an empty collection or
 * null: {exit_code: 0, stdout: ""} is a quiet success, not "nothing found".
 */
function isAllEmpty(obj: Record<string, unknown>, keys: string[], depth: number): boolean {
  let sawCollection = false;
  let sawMember = false;
  for (const k of keys) {
    if (META_SET.has(k)) continue;
    sawMember = true;
    const v = obj[k];
    if (v === null || v === undefined) {
      sawCollection = true;
      continue;
    }
    if (v === '' || v === 0 || v === false) continue;
    if (typeof v === 'string') {
      if (v.trim() === '') continue;
      return false;
    }
    if (Array.isArray(v)) {
      if (v.length !== 0) return false;
      sawCollection = true;
      continue;
    }
    if (typeof v === 'object') {
      const proto: unknown = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) return false;
      const inner = Object.keys(v);
      if (inner.length === 0 || (depth < MAX_EMPTY_DEPTH && isAllEmpty(v as Record<string, unknown>, inner, depth + 1))) {
        sawCollection = true;
        continue;
      }
      return false;
    }
    return false;
  }
  return sawMember && sawCollection;
}
