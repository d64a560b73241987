import { createHash, type Hash } from 'node:crypto';
import { digestBytes, digestString, hashText } from './hash.js';
import { normalizeText } from './normalize.js';
import {
  echoableId,
  echoOrder,
  isMaskedScalar,
  keyInfo,
  KEPT,
  MASKED_ID,
  maskedKeyOf,
  maskEchoedIds,
  maskVolatileText,
  VOLATILE_MARKER,
  type KeyInfo,
  type MaskSettings,
} from './volatile.js';

/**
 * RFC 8785 (JCS) canonical text for JSON values, plus a defined encoding for
 * everything JSON cannot hold. docs/fingerprints.md is the normative
 * description; keep the two in step (the hashes are a public contract: other
 * languages must be able to reproduce them for plain JSON).
 *
 * Hand-written rather than built on JSON.stringify because key order, cycles,
 * exotic values and the size bound all need control, and because this runs on
 * every tool call: one pass, no intermediate objects.
 */

export const DEFAULT_MAX_BYTES = 1_048_576;
/** Containers nested deeper than this are encoded as {"$lg:depth":true}. */
export const MAX_DEPTH = 64;
/** Values visited per canonicalisation before the rest is elided (bounds DAGs that expand exponentially, sparse arrays). */
export const MAX_NODES = 5_000_000;

const FLUSH_AT = 65_536;
const ERROR_TEXT_MAX = 200;

/** Reads the effective size bound; an invalid value falls back to the default (hashing never throws; options are validated at configuration time). */
export function effectiveMaxBytes(maxBytes: number | undefined): number {
  return maxBytes !== undefined && Number.isInteger(maxBytes) && maxBytes >= 64 ? maxBytes : DEFAULT_MAX_BYTES;
}

/**
 * Collects canonical text up to `limit` UTF-16 code units; everything after
 * the cut is streamed into a SHA-256 instead of being kept.
 */
class BoundedSink {
  head = '';
  private tailHash: Hash | null = null;
  private pending = '';
  private tailLength = 0;

  constructor(private readonly limit: number) {}

  write(token: string): void {
    if (this.tailHash === null) {
      if (this.head.length + token.length <= this.limit) {
        this.head += token;
        return;
      }
      this.startTail(token);
      return;
    }
    this.pending += token;
    this.tailLength += token.length;
    if (this.pending.length >= FLUSH_AT) {
      this.tailHash.update(this.pending);
      this.pending = '';
    }
  }

  private startTail(token: string): void {
    let cut = this.limit - this.head.length;
    // Never split a surrogate pair: UTF-8 cannot encode half of one.
    if (cut > 0 && isHighSurrogate(token.charCodeAt(cut - 1)) && isLowSurrogate(token.charCodeAt(cut))) cut--;
    this.head += token.slice(0, cut);
    this.tailHash = createHash('sha256');
    this.pending = token.slice(cut);
    this.tailLength = this.pending.length;
  }

  /** An independent sink holding the same text so far (strings are immutable; a started tail digest is copied). */
  clone(): BoundedSink {
    const c = new BoundedSink(this.limit);
    c.head = this.head;
    if (this.tailHash !== null) {
      c.tailHash = this.tailHash.copy();
      c.pending = this.pending;
      c.tailLength = this.tailLength;
    }
    return c;
  }

  /** True once the text went past the limit and the rest is being digested. */
  get overflowed(): boolean {
    return this.tailHash !== null;
  }

  finish(): string {
    if (this.tailHash === null) return this.head;
    this.tailHash.update(this.pending);
    const total = this.head.length + this.tailLength;
    return `${this.head}{"$lg:truncated":"${this.tailHash.digest('hex')}","len":${total}}`;
  }
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}
function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** Shared by a canonicalisation and the sub-canonicalisations of Map/Set entries. */
interface WalkState {
  nodes: number;
  readonly ancestors: object[];
  readonly limit: number;
}

/**
 * Stands for a value whose reading threw (getter, toJSON, proxy trap); the
 * error waits in `thrownError`. A sentinel compared by identity, because
 * `instanceof` on a user's proxy can itself throw.
 */
const THROWN: object = Object.freeze({});
let thrownError: unknown;
function thrown(error: unknown): object {
  thrownError = error;
  return THROWN;
}

function describeError(error: unknown): string {
  try {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return text.length > ERROR_TEXT_MAX ? text.slice(0, ERROR_TEXT_MAX) : text;
  } catch {
    return 'unprintable error';
  }
}

/** Characters JSON.stringify escapes (RFC 8785 §3.2.2.2); most strings have none, and skipping the call is measurably cheaper. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

function quote(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : '"' + s + '"';
}

function bigStringMarker(s: string): string {
  const d = digestString(s);
  return `{"$lg:str":"${d.hex}","len":${s.length}${d.sampled ? ',"sampled":true' : ''}}`;
}

function bytesMarker(bytes: Uint8Array): string {
  const d = digestBytes(bytes);
  return `{"$lg:bytes":"${d.hex}","len":${bytes.byteLength}${d.sampled ? ',"sampled":true' : ''}}`;
}

/** A member name, encoded once: `"key":` and `,"key":`, and what it is for masking once asked. */
interface Member {
  readonly first: string;
  readonly next: string;
  info: KeyInfo | null;
}
const MEMBER_CACHE_MAX = 4096;
const MEMBER_CACHE_KEY_MAX = 64;
const memberCache = new Map<string, Member>();

/**
 * Sorts keys by UTF-16 code units (RFC 8785 §3.2.3; `<` on strings and the
 * comparator-less Array#sort both compare code units). Objects in tool calls
 * have a handful of keys, where insertion sort is several times faster.
 */
function sortKeys(keys: string[]): void {
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

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const objectProto = Object.prototype;
const dateToJSON = Date.prototype.toJSON;

/**
 * Applies toJSON the way JSON.stringify does (called once, with the property
 * key), except where loopguard has its own encoding.
 */
function applyToJSON(value: object, key: string | number): unknown {
  let fn: unknown;
  try {
    fn = (value as { toJSON?: unknown }).toJSON;
  } catch (error) {
    return thrown(error);
  }
  // Dates and byte views (Buffer#toJSON spells out every byte) have their own encodings.
  if (typeof fn !== 'function' || fn === dateToJSON || ArrayBuffer.isView(value)) return value;
  try {
    return (fn as (k: string) => unknown).call(value, typeof key === 'number' ? String(key) : key);
  } catch (error) {
    return thrown(error);
  }
}

/**
 * How a walk transforms what it writes. Both transforms ride along the one
 * canonicalisation pass because the hot path cannot afford a walk each.
 */
export interface WalkTransforms {
  /** Also produce a derived text (`norm`) with strings through normalizeText (fingerprintArgs). */
  readonly normalize: boolean;
  /** Members dropped from the derived text (ignoreArgs); a derived text is produced when this is set, even without `normalize`. */
  readonly ignore: ReadonlySet<string> | null;
  /** Mask volatile members and text (resultHash). */
  readonly mask: MaskSettings | null;
  /** With `mask`: identifiers whose echoes in strings become `<id>` (in {@link echoOrder}). */
  readonly echoedIds: readonly string[] | null;
}

const PLAIN: WalkTransforms = { normalize: false, ignore: null, mask: null, echoedIds: null };

class Canonicalizer {
  /**
   * The normalised text, forked from the raw sink at the first difference
   * (a string that normalises differently, an ignored member); until then
   * the two texts are the same and nothing is written twice.
   */
  norm: BoundedSink | null = null;
  /** > 0 while writing an ignored member: raw text only. */
  private rawOnly = 0;
  /**
   * Producing the derived (normalised / ignore-dropped) text still: arguments
   * whose canonical text outgrows maxBytes are not transformed (near-duplicate
   * matching is for ordinary calls, and its cost must stay bounded), and
   * canonicalizeArgs then reports no normalised text.
   */
  private deriving: boolean;
  /** > 0 inside arrays, where minted ids are data (see MINTED_KEYS). */
  private arrayDepth = 0;
  /** Echoable values of the identifier members this walk masked (MASKED_ID), when masking. */
  maskedIds: string[] | null = null;
  /** Values written as the volatile marker, when masking. */
  maskedValues = 0;

  constructor(
    readonly sink: BoundedSink,
    private readonly state: WalkState,
    private readonly transforms: WalkTransforms,
  ) {
    this.deriving = transforms.normalize || transforms.ignore !== null;
  }

  /** Whether the derived text is still produced; stops for good once the raw text overflowed. */
  private stillDeriving(): boolean {
    if (this.deriving && this.sink.overflowed) {
      this.deriving = false;
      this.norm = null;
    }
    return this.deriving && this.rawOnly === 0;
  }

  root(value: unknown): void {
    if (typeof value === 'object' && value !== null) value = applyToJSON(value, '');
    this.value(value);
  }

  /** Writes a token to the raw text and, once forked, to the normalised one. */
  private w(token: string): void {
    this.sink.write(token);
    if (this.norm !== null && this.rawOnly === 0) this.norm.write(token);
  }

  private fork(): void {
    if (this.norm === null) this.norm = this.sink.clone();
  }

  private value(v: unknown): void {
    const state = this.state;
    if (++state.nodes > MAX_NODES) {
      this.w('{"$lg:elided":true}');
      return;
    }
    switch (typeof v) {
      case 'string':
        this.string(v);
        return;
      case 'number':
        // String(n) is ECMAScript Number::toString, which RFC 8785 adopts; -0 prints as 0.
        this.w(Number.isFinite(v) ? '' + v : `{"$lg:num":"${v}"}`);
        return;
      case 'boolean':
        this.w(v ? 'true' : 'false');
        return;
      case 'undefined':
        this.w('null');
        return;
      case 'bigint':
        this.w(`{"$lg:bigint":"${v.toString()}"}`);
        return;
      case 'symbol':
        this.w(`{"$lg:symbol":${v.description === undefined ? 'null' : this.stringText(v.description)}}`);
        return;
      case 'function':
        this.w(`{"$lg:fn":${this.stringText(functionName(v))}}`);
        return;
      default:
        if (v === null) this.w('null');
        else if (v === THROWN) this.w(`{"$lg:error":${quote(describeError(thrownError))}}`);
        else this.object(v as object);
    }
  }

  private string(v: string): void {
    const t = this.transforms;
    if (t.mask !== null) {
      if (t.mask.defaults) v = maskVolatileText(v);
      if (t.echoedIds !== null) v = maskEchoedIds(v, t.echoedIds);
      if (v === VOLATILE_MARKER) this.maskedValues++;
    }
    const raw = this.stringText(v);
    if (t.normalize && this.stillDeriving()) {
      const n = normalizeText(v);
      if (n !== v) {
        this.fork();
        this.sink.write(raw);
        (this.norm as BoundedSink).write(this.stringText(n));
        return;
      }
    }
    this.w(raw);
  }

  private stringText(s: string): string {
    return s.length > this.state.limit ? bigStringMarker(s) : quote(s);
  }

  /** `"key":` and its masking class — from a cache, since key names repeat across calls far more than values do. */
  private member(k: string): Member {
    if (k.length > this.state.limit) {
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

  private object(o: object): void {
    const ancestors = this.state.ancestors;
    for (let i = ancestors.length - 1; i >= 0; i--) {
      if (ancestors[i] === o) {
        this.w(`{"$lg:cycle":${ancestors.length - i}}`);
        return;
      }
    }
    if (ancestors.length >= MAX_DEPTH) {
      this.w('{"$lg:depth":true}');
      return;
    }
    let isArray: boolean;
    let proto: unknown;
    try {
      isArray = Array.isArray(o);
      proto = isArray ? null : Object.getPrototypeOf(o);
    } catch (error) {
      this.value(thrown(error));
      return;
    }
    ancestors.push(o);
    if (isArray) this.array(o as unknown[]);
    else if (proto === objectProto || proto === null) this.members(o, null);
    else this.exotic(o);
    ancestors.pop();
  }

  private array(a: unknown[]): void {
    const state = this.state;
    let length: number;
    try {
      length = a.length;
    } catch (error) {
      this.value(thrown(error));
      return;
    }
    this.arrayDepth++;
    this.w('[');
    for (let i = 0; i < length; i++) {
      if (i > 0) this.w(',');
      if (state.nodes >= MAX_NODES) {
        this.w(`{"$lg:elided":${length - i}}`);
        break;
      }
      let v: unknown;
      try {
        v = a[i];
      } catch (error) {
        v = thrown(error);
      }
      if (typeof v === 'object' && v !== null && v !== THROWN) v = applyToJSON(v, i);
      this.value(v);
    }
    this.w(']');
    this.arrayDepth--;
  }

  /** Own enumerable string-keyed properties, sorted by UTF-16 code units; `extra` is a pre-encoded first member. */
  private members(o: object, extra: string | null): void {
    let keys: string[];
    try {
      keys = Object.keys(o);
    } catch (error) {
      this.value(thrown(error));
      return;
    }
    sortKeys(keys);
    const { ignore, mask } = this.transforms;
    this.w('{');
    // The normalised text skips ignored members, so the two texts place commas independently.
    let firstRaw = true;
    let firstNorm = true;
    if (extra !== null) {
      this.w(extra);
      firstRaw = firstNorm = false;
    }
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as string;
      let v: unknown;
      try {
        v = (o as Record<string, unknown>)[k];
      } catch (error) {
        v = thrown(error);
      }
      if (typeof v === 'object' && v !== null && v !== THROWN) v = applyToJSON(v, k);
      if (v === undefined) continue;
      const member = this.member(k);
      if (mask !== null && isMaskedScalar(v)) {
        const masked = maskedKeyOf((member.info ??= keyInfo(k)), k, mask, this.arrayDepth > 0);
        if (masked !== KEPT) {
          if (masked === MASKED_ID) this.rememberId(v);
          v = VOLATILE_MARKER;
        }
      }
      if (ignore !== null && ignore.has(k) && this.stillDeriving()) {
        this.fork();
        this.sink.write(firstRaw ? member.first : member.next);
        firstRaw = false;
        this.rawOnly++;
        this.value(v);
        this.rawOnly--;
        continue;
      }
      this.sink.write(firstRaw ? member.first : member.next);
      if (this.norm !== null && this.rawOnly === 0) this.norm.write(firstNorm ? member.first : member.next);
      firstRaw = firstNorm = false;
      this.value(v);
    }
    this.w('}');
  }

  private rememberId(v: unknown): void {
    const id = echoableId(v);
    if (id === null) return;
    if (this.maskedIds === null) this.maskedIds = [id];
    else if (!this.maskedIds.includes(id)) this.maskedIds.push(id);
  }

  private exotic(o: object): void {
    try {
      if (o instanceof Date) {
        const t = o.getTime();
        if (Number.isNaN(t)) this.w('{"$lg:date":"invalid"}');
        else this.string(o.toISOString());
      } else if (ArrayBuffer.isView(o)) {
        this.w(bytesMarker(new Uint8Array(o.buffer, o.byteOffset, o.byteLength)));
      } else if (o instanceof ArrayBuffer || (typeof SharedArrayBuffer === 'function' && o instanceof SharedArrayBuffer)) {
        this.w(bytesMarker(new Uint8Array(o)));
      } else if (o instanceof Map) {
        this.map(o);
      } else if (o instanceof Set) {
        this.set(o);
      } else if (o instanceof Number || o instanceof String || o instanceof Boolean) {
        this.value(o.valueOf());
      } else if (o instanceof RegExp) {
        this.w(`{"$lg:regexp":${this.stringText(String(o))}}`);
      } else if (o instanceof Error) {
        this.members(o, `"$lg:exception":${this.stringText(describeError(o))}`);
      } else {
        this.members(o, null);
      }
    } catch (error) {
      this.w(`{"$lg:error":${quote(describeError(error))}}`);
    }
  }

  /**
   * Canonical text of one Map/Set element on its own, with the same limits
   * and node budget, untransformed: elements are sorted by this text, which
   * must not depend on what the caller is fingerprinting.
   */
  private sub(v: unknown): string {
    const sink = new BoundedSink(this.state.limit);
    new Canonicalizer(sink, this.state, PLAIN).root(v);
    return sink.finish();
  }

  private map(m: Map<unknown, unknown>): void {
    const entries: [string, string][] = [];
    for (const [k, v] of m) {
      if (this.state.nodes >= MAX_NODES) break;
      entries.push([this.sub(k), this.sub(v)]);
    }
    entries.sort((a, b) => compareText(a[0], b[0]) || compareText(a[1], b[1]));
    this.w('{"$lg:map":[');
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i] as [string, string];
      this.w(i === 0 ? '[' : ',[');
      this.w(e[0]);
      this.w(',');
      this.w(e[1]);
      this.w(']');
    }
    if (entries.length < m.size) this.w(`${entries.length > 0 ? ',' : ''}{"$lg:elided":${m.size - entries.length}}`);
    this.w(']}');
  }

  private set(s: Set<unknown>): void {
    const texts: string[] = [];
    for (const v of s) {
      if (this.state.nodes >= MAX_NODES) break;
      texts.push(this.sub(v));
    }
    texts.sort(compareText);
    this.w('{"$lg:set":[');
    for (let i = 0; i < texts.length; i++) {
      if (i > 0) this.w(',');
      this.w(texts[i] as string);
    }
    if (texts.length < s.size) this.w(`${texts.length > 0 ? ',' : ''}{"$lg:elided":${s.size - texts.length}}`);
    this.w(']}');
  }
}

function functionName(fn: unknown): string {
  try {
    const name = (fn as { name?: unknown }).name;
    return typeof name === 'string' ? name : '';
  } catch {
    return '';
  }
}

function walk(value: unknown, limit: number, transforms: WalkTransforms): Canonicalizer {
  const c = new Canonicalizer(new BoundedSink(limit), { nodes: 0, ancestors: [], limit }, transforms);
  c.root(value);
  return c;
}

function failureText(error: unknown): string {
  // Only a runtime failure (e.g. out of memory on a pathological input) lands here.
  return `{"$lg:error":${quote(describeError(error))}}`;
}

/**
 * Canonical text of any value: RFC 8785 for JSON values, the documented
 * `$lg:` encodings for the rest. Never throws; bounded in time and size.
 */
export function canonicalize(value: unknown, maxBytes?: number): string {
  try {
    return walk(value, effectiveMaxBytes(maxBytes), PLAIN).sink.finish();
  } catch (error) {
    return failureText(error);
  }
}

/**
 * Canonical text of arguments and, when normalisation changes anything, of
 * the normalised arguments (`normalized` is null when it would equal `text`
 * by construction, and when `text` outgrew maxBytes: huge arguments are not
 * normalised). Never throws.
 */
export function canonicalizeArgs(value: unknown, maxBytes: number, ignore: ReadonlySet<string> | null): { text: string; normalized: string | null } {
  try {
    const c = walk(value, maxBytes, { normalize: true, ignore, mask: null, echoedIds: null });
    const normalized = c.norm === null || c.sink.overflowed ? null : c.norm.finish();
    return { text: c.sink.finish(), normalized };
  } catch (error) {
    return { text: failureText(error), normalized: null };
  }
}

/**
 * Canonical text of arguments with the `ignore` members dropped and nothing
 * else changed (argsShapeHash); the plain canonical text when it outgrows
 * maxBytes (huge arguments are not transformed). Never throws.
 */
export function canonicalizeWithout(value: unknown, maxBytes: number, ignore: ReadonlySet<string> | null): string {
  try {
    const c = walk(value, maxBytes, { normalize: false, ignore, mask: null, echoedIds: null });
    return c.norm === null || c.sink.overflowed ? c.sink.finish() : c.norm.finish();
  } catch (error) {
    return failureText(error);
  }
}

/** A masked canonical text, and how many values in it are the volatile marker (`"$lg:volatile"`). */
export interface MaskedText {
  text: string;
  maskedValues: number;
}

/**
 * Canonical text of a result with volatile members and text masked. Echoes
 * of masked identifiers in strings are masked too: strings can come before
 * the identifier in key order, so a result that has one and repeats it
 * somewhere (or outgrew maxBytes, where the text cannot be searched) is
 * walked a second time knowing them; every other result is walked once.
 * Never throws.
 */
export function canonicalizeMasked(value: unknown, maxBytes: number, mask: MaskSettings): MaskedText {
  try {
    let c = walk(value, maxBytes, { normalize: false, ignore: null, mask, echoedIds: null });
    const ids = c.maskedIds;
    const text = c.sink.finish();
    if (ids === null || (!c.sink.overflowed && !ids.some((id) => text.includes(id)))) return { text, maskedValues: c.maskedValues };
    c = walk(value, maxBytes, { normalize: false, ignore: null, mask, echoedIds: echoOrder(ids) });
    return { text: c.sink.finish(), maskedValues: c.maskedValues };
  } catch (error) {
    return { text: failureText(error), maskedValues: 0 };
  }
}

/** `hashText(canonicalize(value, maxBytes))`: 16 hex chars. */
export function hashValue(value: unknown, maxBytes?: number): string {
  return hashText(canonicalize(value, maxBytes));
}
