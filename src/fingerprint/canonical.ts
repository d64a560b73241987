import { createHash, type Hash } from 'node:crypto';
import { digestBytes, digestString, hashText } from './hash.js';

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

class Canonicalizer {
  constructor(
    private readonly sink: BoundedSink,
    private readonly state: WalkState,
  ) {}

  root(value: unknown): void {
    if (typeof value === 'object' && value !== null) value = applyToJSON(value, '');
    this.value(value);
  }

  private value(v: unknown): void {
    const state = this.state;
    if (++state.nodes > MAX_NODES) {
      this.sink.write('{"$lg:elided":true}');
      return;
    }
    switch (typeof v) {
      case 'string':
        this.sink.write(v.length > state.limit ? bigStringMarker(v) : quote(v));
        return;
      case 'number':
        // String(n) is ECMAScript Number::toString, which RFC 8785 adopts; -0 prints as 0.
        this.sink.write(Number.isFinite(v) ? '' + v : `{"$lg:num":"${v}"}`);
        return;
      case 'boolean':
        this.sink.write(v ? 'true' : 'false');
        return;
      case 'undefined':
        this.sink.write('null');
        return;
      case 'bigint':
        this.sink.write(`{"$lg:bigint":"${v.toString()}"}`);
        return;
      case 'symbol':
        this.sink.write(`{"$lg:symbol":${v.description === undefined ? 'null' : this.stringText(v.description)}}`);
        return;
      case 'function':
        this.sink.write(`{"$lg:fn":${this.stringText(functionName(v))}}`);
        return;
      default:
        if (v === null) this.sink.write('null');
        else if (v === THROWN) this.sink.write(`{"$lg:error":${quote(describeError(thrownError))}}`);
        else this.object(v as object);
    }
  }

  private stringText(s: string): string {
    return s.length > this.state.limit ? bigStringMarker(s) : quote(s);
  }

  private keyText(k: string): string {
    return k.length > this.state.limit ? quote(`$lg:str:${digestString(k).hex}:${k.length}`) : quote(k);
  }

  private object(o: object): void {
    const ancestors = this.state.ancestors;
    for (let i = ancestors.length - 1; i >= 0; i--) {
      if (ancestors[i] === o) {
        this.sink.write(`{"$lg:cycle":${ancestors.length - i}}`);
        return;
      }
    }
    if (ancestors.length >= MAX_DEPTH) {
      this.sink.write('{"$lg:depth":true}');
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
    const sink = this.sink;
    const state = this.state;
    let length: number;
    try {
      length = a.length;
    } catch (error) {
      this.value(thrown(error));
      return;
    }
    sink.write('[');
    for (let i = 0; i < length; i++) {
      if (i > 0) sink.write(',');
      if (state.nodes >= MAX_NODES) {
        sink.write(`{"$lg:elided":${length - i}}`);
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
    sink.write(']');
  }

  /** Own enumerable string-keyed properties, sorted by UTF-16 code units; `extra` is a pre-encoded first member. */
  private members(o: object, extra: string | null): void {
    const sink = this.sink;
    let keys: string[];
    try {
      keys = Object.keys(o);
    } catch (error) {
      this.value(thrown(error));
      return;
    }
    // Array.prototype.sort without a comparator orders by UTF-16 code units, as RFC 8785 §3.2.3 requires.
    if (keys.length > 1) keys.sort();
    sink.write('{');
    let first = true;
    if (extra !== null) {
      sink.write(extra);
      first = false;
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
      sink.write(first ? this.keyText(k) + ':' : ',' + this.keyText(k) + ':');
      first = false;
      this.value(v);
    }
    sink.write('}');
  }

  private exotic(o: object): void {
    const sink = this.sink;
    try {
      if (o instanceof Date) {
        const t = o.getTime();
        sink.write(Number.isNaN(t) ? '{"$lg:date":"invalid"}' : quote(o.toISOString()));
      } else if (ArrayBuffer.isView(o)) {
        sink.write(bytesMarker(new Uint8Array(o.buffer, o.byteOffset, o.byteLength)));
      } else if (o instanceof ArrayBuffer || (typeof SharedArrayBuffer === 'function' && o instanceof SharedArrayBuffer)) {
        sink.write(bytesMarker(new Uint8Array(o)));
      } else if (o instanceof Map) {
        this.map(o);
      } else if (o instanceof Set) {
        this.set(o);
      } else if (o instanceof Number || o instanceof String || o instanceof Boolean) {
        this.value(o.valueOf());
      } else if (o instanceof RegExp) {
        sink.write(`{"$lg:regexp":${this.stringText(String(o))}}`);
      } else if (o instanceof Error) {
        this.members(o, `"$lg:exception":${this.stringText(describeError(o))}`);
      } else {
        this.members(o, null);
      }
    } catch (error) {
      sink.write(`{"$lg:error":${quote(describeError(error))}}`);
    }
  }

  /** Canonical text of one Map/Set element on its own, with the same limits and the same node budget. */
  private sub(v: unknown): string {
    const sink = new BoundedSink(this.state.limit);
    new Canonicalizer(sink, this.state).root(v);
    return sink.finish();
  }

  private map(m: Map<unknown, unknown>): void {
    const entries: [string, string][] = [];
    for (const [k, v] of m) {
      if (this.state.nodes >= MAX_NODES) break;
      entries.push([this.sub(k), this.sub(v)]);
    }
    entries.sort((a, b) => compareText(a[0], b[0]) || compareText(a[1], b[1]));
    const sink = this.sink;
    sink.write('{"$lg:map":[');
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i] as [string, string];
      sink.write(i === 0 ? '[' : ',[');
      sink.write(e[0]);
      sink.write(',');
      sink.write(e[1]);
      sink.write(']');
    }
    if (entries.length < m.size) sink.write(`${entries.length > 0 ? ',' : ''}{"$lg:elided":${m.size - entries.length}}`);
    sink.write(']}');
  }

  private set(s: Set<unknown>): void {
    const texts: string[] = [];
    for (const v of s) {
      if (this.state.nodes >= MAX_NODES) break;
      texts.push(this.sub(v));
    }
    texts.sort(compareText);
    const sink = this.sink;
    sink.write('{"$lg:set":[');
    for (let i = 0; i < texts.length; i++) {
      if (i > 0) sink.write(',');
      sink.write(texts[i] as string);
    }
    if (texts.length < s.size) sink.write(`${texts.length > 0 ? ',' : ''}{"$lg:elided":${s.size - texts.length}}`);
    sink.write(']}');
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

/**
 * Canonical text of any value: RFC 8785 for JSON values, the documented
 * `$lg:` encodings for the rest. Never throws; bounded in time and size.
 */
export function canonicalize(value: unknown, maxBytes?: number): string {
  const limit = effectiveMaxBytes(maxBytes);
  const sink = new BoundedSink(limit);
  try {
    new Canonicalizer(sink, { nodes: 0, ancestors: [], limit }).root(value);
    return sink.finish();
  } catch (error) {
    // Only a runtime failure (e.g. out of memory in a pathological input) lands here.
    return `{"$lg:error":${quote(describeError(error))}}`;
  }
}

/** `hashText(canonicalize(value, maxBytes))`: 16 hex chars. */
export function hashValue(value: unknown, maxBytes?: number): string {
  return hashText(canonicalize(value, maxBytes));
}
