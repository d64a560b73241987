import { digestBytes, digestString } from './hash.js';
import type { KeyInfo } from './volatile.js';

/**
 * The lexical side of the canonical text: how strings, member names, byte
 * ranges and errors are spelled (RFC 8785 §3.2.2.2 for strings, the `$lg:`
 * markers of docs/fingerprints.md for the rest), and the code-unit order
 * members and Map/Set elements are sorted in.
 */

const ERROR_TEXT_MAX = 200;

/** Characters JSON.stringify escapes (RFC 8785 §3.2.2.2); most strings have none, and skipping the call is measurably cheaper. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

function quote(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : '"' + s + '"';
}

/** A string value as written in a canonical text bounded at `limit`: quoted, or its digest when longer than the bound. */
export function stringText(s: string, limit: number): string {
  if (s.length <= limit) return quote(s);
  const d = digestString(s);
  return `{"$lg:str":"${d.hex}","len":${s.length}${d.sampled ? ',"sampled":true' : ''}}`;
}

export function bytesText(bytes: Uint8Array): string {
  const d = digestBytes(bytes);
  return `{"$lg:bytes":"${d.hex}","len":${bytes.byteLength}${d.sampled ? ',"sampled":true' : ''}}`;
}

export function describeError(error: unknown): string {
  try {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return text.length > ERROR_TEXT_MAX ? text.slice(0, ERROR_TEXT_MAX) : text;
  } catch {
    return 'unprintable error';
  }
}

/** `{"$lg:error":…}`: stands for a value whose reading threw. */
export function errorText(error: unknown): string {
  return `{"$lg:error":${quote(describeError(error))}}`;
}

/**
 * A member name, encoded once: `"key":` and `,"key":`. `info` is the name's
 * masking class, filled in by the result mask the first time it asks, so a
 * name is encoded and classified once per cache entry.
 */
export interface Member {
  readonly first: string;
  readonly next: string;
  info: KeyInfo | null;
}
const MEMBER_CACHE_MAX = 4096;
const MEMBER_CACHE_KEY_MAX = 64;
const memberCache = new Map<string, Member>();

/** `"key":` for a text bounded at `limit` — from a cache, since key names repeat across calls far more than values do. */
export function memberText(k: string, limit: number): Member {
  if (k.length > limit) {
    const first = quote(`$lg:str:${digestString(k).hex}:${k.length}`) + ':';
    return { first, next: ',' + first, info: null };
  }
  let m = memberCache.get(k);
  if (m === undefined) {
    const first = quote(k) + ':';
    m = { first, next: ',' + first, info: null };
    // Long names are rare and may be unique: they stay out of the cache.
    if (k.length <= MEMBER_CACHE_KEY_MAX) {
      if (memberCache.size >= MEMBER_CACHE_MAX) memberCache.clear();
      memberCache.set(k, m);
    }
  }
  return m;
}

/**
 * Sorts keys by UTF-16 code units (RFC 8785 §3.2.3; `<` on strings and the
 * comparator-less Array#sort both compare code units). Objects in tool calls
 * have a handful of keys, where insertion sort is several times faster.
 */
export function sortKeys(keys: string[]): void {
  const n = keys.length;
  if (n > 16) {
    keys.sort();
    return;
  }
  for (let i = 1; i < n; i++) {
    const x = keys[i] as string;
    let j = i - 1;
    while (j >= 0 && (keys[j] as string) > x) {
      keys[j + 1] = keys[j] as string;
      j--;
    }
    keys[j + 1] = x;
  }
}

export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
