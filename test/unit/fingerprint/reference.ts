/**
 * Value-level forms of the argument normalisation and result masking rules.
 * The hashes never use them: fingerprintArgs and resultHash apply the same
 * rules inside their one canonicalisation pass (src/fingerprint/walk.ts).
 * They are written as plain recursive copies so tests can hold the fused pass
 * to the same hashes (fused.test.ts): two implementations of one rule set,
 * each checking the other. The per-string rules (normalizeText,
 * maskVolatileText, maskEchoedIds) and the key rules (keyInfo, maskedKeyOf)
 * come from src, so what is cross-checked here is the walk.
 */

import { normalizeText } from '../../../src/fingerprint/normalize.js';
import {
  echoableId,
  echoOrder,
  isMaskedScalar,
  KEPT,
  keyInfo,
  MASKED_ID,
  maskedKeyOf,
  maskEchoedIds,
  maskVolatileText,
  VOLATILE_MARKER,
  type MaskSettings,
} from '../../../src/fingerprint/volatile.js';

/** Containers nested deeper than this are left as they are (walk.ts writes them as {"$lg:depth":true}). */
const MAX_DEPTH = 64;

/**
 * Objects whose canonical form is their own enumerable members: plain objects
 * and class instances, but not the values canonicalize encodes otherwise
 * (Date, Map, Set, bytes, boxed primitives, RegExp, Error, anything with toJSON).
 */
function isRecord(v: object): boolean {
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto === Object.prototype || proto === null) return true;
  return (
    !(
      v instanceof Date ||
      v instanceof Map ||
      v instanceof Set ||
      ArrayBuffer.isView(v) ||
      v instanceof ArrayBuffer ||
      v instanceof Number ||
      v instanceof String ||
      v instanceof Boolean ||
      v instanceof RegExp ||
      v instanceof Error
    ) && typeof (v as { toJSON?: unknown }).toJSON !== 'function'
  );
}

/**
 * The normalisation as a value: `args` itself when nothing changes, else a
 * copy of the changed parts. Strings inside objects and arrays are
 * normalised (normalizeText), keys never are; members named in `ignore` are
 * dropped at any depth. Never throws.
 */
export function normalizeArgs(args: unknown, ignore: ReadonlySet<string> | null): unknown {
  try {
    return normalizeValue(args, ignore, []);
  } catch {
    // A throwing getter or proxy: compare such arguments by their raw hash only.
    return args;
  }
}

function normalizeValue(v: unknown, ignore: ReadonlySet<string> | null, ancestors: object[]): unknown {
  if (typeof v === 'string') return normalizeText(v);
  if (typeof v !== 'object' || v === null) return v;
  if (ancestors.length >= MAX_DEPTH || ancestors.includes(v)) return v;
  if (Array.isArray(v)) {
    ancestors.push(v);
    let copy: unknown[] | null = null;
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i];
      const n = normalizeValue(item, ignore, ancestors);
      if (copy !== null) copy.push(n);
      else if (n !== item) {
        copy = v.slice(0, i);
        copy.push(n);
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
    if (ignore !== null && ignore.has(k)) {
      copy ??= copyPrefix(src, keys, i);
      continue;
    }
    const item = src[k];
    const n = normalizeValue(item, ignore, ancestors);
    if (copy !== null) copy[k] = n;
    else if (n !== item) {
      copy = copyPrefix(src, keys, i);
      copy[k] = n;
    }
  }
  ancestors.pop();
  return copy ?? v;
}

/** A null-prototype copy of the first `n` members (null prototype so a "__proto__" key stays an ordinary member). */
function copyPrefix(src: Record<string, unknown>, keys: string[], n: number): Record<string, unknown> {
  const copy = Object.create(null) as Record<string, unknown>;
  for (let i = 0; i < n; i++) {
    const k = keys[i] as string;
    copy[k] = src[k];
  }
  return copy;
}

/** maskedKeyOf for a bare key. */
function maskedKey(key: string, settings: MaskSettings, inArray: boolean): ReturnType<typeof maskedKeyOf> {
  return maskedKeyOf(keyInfo(key), key, settings, inArray);
}

/**
 * The masking as a value: `value` itself when nothing in it is volatile,
 * else a copy with volatile scalars replaced by VOLATILE_MARKER, volatile
 * text replaced by `<timestamp>`, `<uuid>`, `<tmpdir>`, `<duration>`, and
 * echoes of masked identifiers by `<id>`. Never throws.
 */
export function maskVolatile(value: unknown, settings: MaskSettings): unknown {
  if (!settings.defaults && settings.extra === null) return value;
  try {
    const ids: string[] = [];
    collectIds(value, settings, false, [], ids);
    return maskValue(value, settings, false, [], echoOrder(ids));
  } catch {
    return value;
  }
}

/** The echoable values of masked identifier members, in the order a walk meets them. */
function collectIds(v: unknown, settings: MaskSettings, inArray: boolean, ancestors: object[], ids: string[]): void {
  if (typeof v !== 'object' || v === null) return;
  if (ancestors.length >= MAX_DEPTH || ancestors.includes(v)) return;
  ancestors.push(v);
  if (Array.isArray(v)) {
    for (const item of v) collectIds(item, settings, true, ancestors, ids);
  } else if (isRecord(v)) {
    for (const [k, item] of Object.entries(v)) {
      if (item !== undefined && isMaskedScalar(item) && maskedKey(k, settings, inArray) === MASKED_ID) {
        const id = echoableId(item);
        if (id !== null && !ids.includes(id)) ids.push(id);
      } else {
        collectIds(item, settings, inArray, ancestors, ids);
      }
    }
  }
  ancestors.pop();
}

function maskValue(v: unknown, settings: MaskSettings, inArray: boolean, ancestors: object[], ids: readonly string[]): unknown {
  if (typeof v === 'string') {
    const t = settings.defaults ? maskVolatileText(v) : v;
    return ids.length > 0 ? maskEchoedIds(t, ids) : t;
  }
  if (typeof v !== 'object' || v === null) return v;
  if (ancestors.length >= MAX_DEPTH || ancestors.includes(v)) return v;
  if (Array.isArray(v)) {
    ancestors.push(v);
    let copy: unknown[] | null = null;
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i];
      const m = maskValue(item, settings, true, ancestors, ids);
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
    if (item !== undefined && isMaskedScalar(item) && maskedKey(k, settings, inArray) !== KEPT) m = VOLATILE_MARKER;
    else m = maskValue(item, settings, inArray, ancestors, ids);
    if (copy !== null) copy[k] = m;
    else if (m !== item) {
      copy = copyPrefix(src, keys, i);
      copy[k] = m;
    }
  }
  ancestors.pop();
  return copy ?? v;
}
