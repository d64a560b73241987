import { BoundedSink } from './bounded-sink.js';
import type { DerivedText } from './derived-text.js';
import type { FreeTextProbe } from './free-text-probe.js';
import { bytesText, compareText, describeError, errorText, memberText, sortKeys, stringText } from './json-text.js';
import type { ResultMask } from './result-mask.js';

/**
 * The one walk of a value that every fingerprint text comes from: RFC 8785
 * (JCS) order and encoding for JSON values, the `$lg:` encodings of
 * docs/fingerprints.md for everything JSON cannot hold, and its bounds
 * (cycles, depth, a node budget; the size bound is the text's own). It
 * decides what is written and in which order; the consumers riding along
 * decide what becomes of it, so the hot path stays one pass per value:
 *
 * - the canonical text (`BoundedSink`) gets every token: the exact hash;
 * - `FreeTextProbe` sees the same tokens: whether the sketch must read the text;
 * - `DerivedText` (arguments) forks a normalised / ignore-dropped text;
 * - `ResultMask` (results) replaces volatile members and text before they
 *   are written, and records the identifiers it masked (`MaskedIds`).
 *
 * Hand-written rather than built on JSON.stringify because key order, cycles,
 * exotic values and the size bound all need control, and because this runs on
 * every tool call: one pass, no intermediate objects.
 */

/** Containers nested deeper than this are encoded as {"$lg:depth":true}. */
export const MAX_DEPTH = 64;
/** Values visited per canonicalisation before the rest is elided (bounds DAGs that expand exponentially, sparse arrays). */
export const MAX_NODES = 5_000_000;

export interface WalkConsumers {
  /** The canonical text. */
  readonly text: BoundedSink;
  readonly probe: FreeTextProbe | null;
  /** Arguments only. */
  readonly derived: DerivedText | null;
  /** Results only. */
  readonly mask: ResultMask | null;
}

/** Walks `value` into `consumers`, its text bounded at `limit` code units. May throw only on a runtime failure (out of memory); callers catch. */
export function walk(value: unknown, limit: number, consumers: WalkConsumers): void {
  new Walker(consumers, { nodes: 0, ancestors: [], limit }).root(value);
}

/** Shared by a walk and the sub-walks of its Map/Set elements. */
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

function functionName(fn: unknown): string {
  try {
    const name = (fn as { name?: unknown }).name;
    return typeof name === 'string' ? name : '';
  } catch {
    return '';
  }
}

class Walker {
  private readonly text: BoundedSink;
  private readonly probe: FreeTextProbe | null;
  private readonly derived: DerivedText | null;
  private readonly mask: ResultMask | null;
  /** > 0 inside arrays, where minted ids are data (see MINTED_KEYS). */
  private arrayDepth = 0;

  constructor(
    consumers: WalkConsumers,
    private readonly state: WalkState,
  ) {
    this.text = consumers.text;
    this.probe = consumers.probe;
    this.derived = consumers.derived;
    this.mask = consumers.mask;
  }

  root(value: unknown): void {
    if (typeof value === 'object' && value !== null) value = applyToJSON(value, '');
    this.value(value);
  }

  /** A token written alike in every text. */
  private w(token: string): void {
    if (this.derived !== null) this.derived.write(token);
    this.canonical(token);
  }

  /** A token of the canonical text (the derived text has had its say). */
  private canonical(token: string): void {
    this.text.write(token);
    if (this.probe !== null) this.probe.write(token);
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
        this.w(`{"$lg:symbol":${v.description === undefined ? 'null' : stringText(v.description, state.limit)}}`);
        return;
      case 'function':
        this.w(`{"$lg:fn":${stringText(functionName(v), state.limit)}}`);
        return;
      default:
        if (v === null) this.w('null');
        else if (v === THROWN) this.w(errorText(thrownError));
        else this.object(v as object);
    }
  }

  private string(v: string): void {
    if (this.mask !== null) v = this.mask.string(v);
    const written = stringText(v, this.state.limit);
    if (this.derived !== null) this.derived.string(v, written);
    this.canonical(written);
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
    const { derived, mask } = this;
    const limit = this.state.limit;
    this.w('{');
    if (extra !== null) this.w(extra);
    if (derived !== null) derived.openObject(extra !== null);
    let first = extra === null;
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
      const member = memberText(k, limit);
      if (mask !== null) v = mask.member(k, member, v, this.arrayDepth > 0);
      const ignored = derived !== null && derived.member(k, member);
      this.canonical(first ? member.first : member.next);
      first = false;
      this.value(v);
      if (ignored) (derived as DerivedText).endIgnored();
    }
    this.w('}');
    if (derived !== null) derived.closeObject();
  }

  private exotic(o: object): void {
    const limit = this.state.limit;
    try {
      if (o instanceof Date) {
        const t = o.getTime();
        if (Number.isNaN(t)) this.w('{"$lg:date":"invalid"}');
        else this.string(o.toISOString());
      } else if (ArrayBuffer.isView(o)) {
        this.w(bytesText(new Uint8Array(o.buffer, o.byteOffset, o.byteLength)));
      } else if (o instanceof ArrayBuffer || (typeof SharedArrayBuffer === 'function' && o instanceof SharedArrayBuffer)) {
        this.w(bytesText(new Uint8Array(o)));
      } else if (o instanceof Map) {
        this.map(o);
      } else if (o instanceof Set) {
        this.set(o);
      } else if (o instanceof Number || o instanceof String || o instanceof Boolean) {
        this.value(o.valueOf());
      } else if (o instanceof RegExp) {
        this.w(`{"$lg:regexp":${stringText(String(o), limit)}}`);
      } else if (o instanceof Error) {
        this.members(o, `"$lg:exception":${stringText(describeError(o), limit)}`);
      } else {
        this.members(o, null);
      }
    } catch (error) {
      this.w(errorText(error));
    }
  }

  /**
   * Canonical text of one Map/Set element on its own, with the same limits
   * and node budget, untransformed: elements are sorted by this text, which
   * must not depend on what the caller is fingerprinting.
   */
  private sub(v: unknown): string {
    const text = new BoundedSink(this.state.limit);
    new Walker({ text, probe: null, derived: null, mask: null }, this.state).root(v);
    return text.finish();
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
