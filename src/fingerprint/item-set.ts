import { FNV_PRIME, fmix32, fnv1a } from './sketch.js';

/**
 * The items a result lists, compared as a set (docs/fingerprints.md, "Item
 * sets").
 *
 * A search asked the same thing in other words returns the same hits with
 * other scores, in another order: the exact result hash reads each as a new
 * answer. The item-set hash reads a result that lists things (an array of
 * two or more items at its top level or in one of its top-level members) as
 * the set of what it lists: arrays and objects are combined order-free (a
 * sum of mixed member hashes), and a number with a fraction (a score, a
 * distance, a relevance) counts only as "a fraction". Integers, strings,
 * keys, booleans and the rest of the result count as they are.
 *
 * Bounded: a value of more than ITEMS_MAX_NODES nodes or ITEMS_MAX_CHARS
 * characters of strings and keys has no item-set hash (0), nor has a result
 * that lists nothing. Never throws; builds no text (no canonical form, no
 * sorting): one walk over the value.
 */

/** Nodes read at most: a page of hits, not a dump. */
export const ITEMS_MAX_NODES = 2_048;
/** Characters of strings and keys read at most. */
export const ITEMS_MAX_CHARS = 32_768;
/** Nesting read at most. */
const MAX_DEPTH = 16;

const TAG_NULL = 0x2c1b3c6d;
const TAG_TRUE = 0x297a2d39;
const TAG_FALSE = 0x5a4b3c2d;
const TAG_FRACTION = 0x1b873593;
const TAG_ARRAY = 0x68e31da4;
const TAG_OBJECT = 0x3c6ef372;
const TAG_INTEGER = 0x7f4a7c15;
const TAG_TOO_BIG = -1;

let nodes = 0;
let chars = 0;

/** The order-free hash of what a result lists (never 0), or 0 when it lists nothing or is too big to read. */
export function itemSetHash(value: unknown): number {
  nodes = 0;
  chars = 0;
  try {
    if (!listsItems(value)) return 0;
    const h = hashOf(value, 0);
    return h === TAG_TOO_BIG ? 0 : h >>> 0 || 1;
  } catch {
    return 0;
  }
}

/** An array of two or more items at the top level, or as a top-level member's value. */
function listsItems(value: unknown): boolean {
  if (Array.isArray(value)) return value.length >= 2;
  if (typeof value !== 'object' || value === null) return false;
  for (const key in value) {
    const v = (value as Record<string, unknown>)[key];
    if (Array.isArray(v) && v.length >= 2) return true;
  }
  return false;
}

function textHash(text: string): number {
  chars += text.length;
  return fnv1a(text);
}

// Key names repeat across results (every hit has its `title` and `url`): their mixed hashes are remembered.
const KEY_CACHE_MAX = 4096;
const keyHashes = new Map<string, number>();

/** A member name's FNV-1a hash times FNV_PRIME (the key's part of its member's hash); counts its characters. */
function keyHash(key: string): number {
  chars += key.length;
  let h = keyHashes.get(key);
  if (h === undefined) {
    h = Math.imul(fnv1a(key), FNV_PRIME);
    if (keyHashes.size >= KEY_CACHE_MAX) keyHashes.clear();
    keyHashes.set(key, h);
  }
  return h;
}

/** The hash of one value (TAG_TOO_BIG once a bound is passed). */
function hashOf(value: unknown, depth: number): number {
  if (++nodes > ITEMS_MAX_NODES || depth > MAX_DEPTH) return TAG_TOO_BIG;
  switch (typeof value) {
    case 'string':
      return chars + value.length > ITEMS_MAX_CHARS ? TAG_TOO_BIG : textHash(value);
    case 'number':
      if (!Number.isInteger(value)) return TAG_FRACTION;
      // The integer's two 32-bit halves: exact for every safe integer.
      return fmix32(Math.imul(fmix32(value >>> 0) ^ TAG_INTEGER, FNV_PRIME) ^ Math.floor(value / 4294967296));
    case 'boolean':
      return value ? TAG_TRUE : TAG_FALSE;
    case 'object': {
      if (value === null) return TAG_NULL;
      let sum = 0;
      if (Array.isArray(value)) {
        for (const item of value) {
          const h = hashOf(item, depth + 1);
          if (h === TAG_TOO_BIG) return TAG_TOO_BIG;
          sum = (sum + fmix32(h)) | 0;
        }
        return fmix32((sum ^ TAG_ARRAY) + value.length);
      }
      let count = 0;
      for (const key in value) {
        if (chars + key.length > ITEMS_MAX_CHARS) return TAG_TOO_BIG;
        const h = hashOf((value as Record<string, unknown>)[key], depth + 1);
        if (h === TAG_TOO_BIG) return TAG_TOO_BIG;
        sum = (sum + fmix32(keyHash(key) ^ h)) | 0;
        count++;
      }
      return fmix32((sum ^ TAG_OBJECT) + count);
    }
    default:
      return TAG_NULL;
  }
}
