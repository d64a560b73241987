/** Per-tool fingerprint settings (DESIGN §2, §7). */
export interface FingerprintOptions {
  /** Field names (any depth, exact key match) dropped before the normalised args hash, e.g. request ids. */
  ignoreArgs?: readonly string[];
  /** Extra result keys treated as volatile (masked before hashing the result), added to the defaults. */
  volatileKeys?: readonly string[];
  /** false disables default volatile masking (the extra `volatileKeys` still apply). default true */
  maskVolatile?: boolean;
  /** Max UTF-16 code units of canonical text kept for one value (= bytes for ASCII); beyond it the rest is digested. default 1 MiB, minimum 64 */
  maxBytes?: number;
}

/**
 * Checks options at configuration time, with errors that name the field.
 * Hashing itself never throws: at call time an invalid value falls back to
 * its default.
 */
export function validateFingerprintOptions(opts: unknown, where = 'fingerprint options'): FingerprintOptions {
  if (opts === undefined) return {};
  if (typeof opts !== 'object' || opts === null || Array.isArray(opts)) {
    throw new TypeError(`${where}: expected an object, got ${describe(opts)}`);
  }
  const o = opts as Record<string, unknown>;
  for (const field of ['ignoreArgs', 'volatileKeys'] as const) {
    const v = o[field];
    if (v === undefined) continue;
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) {
      throw new TypeError(`${where}.${field}: expected an array of strings, got ${describe(v)}`);
    }
  }
  if (o.maskVolatile !== undefined && typeof o.maskVolatile !== 'boolean') {
    throw new TypeError(`${where}.maskVolatile: expected a boolean, got ${describe(o.maskVolatile)}`);
  }
  if (o.maxBytes !== undefined && !(typeof o.maxBytes === 'number' && Number.isInteger(o.maxBytes) && o.maxBytes >= 64)) {
    throw new RangeError(`${where}.maxBytes: expected an integer >= 64, got ${describe(o.maxBytes)}`);
  }
  return o as FingerprintOptions;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return typeof v;
}

// Options objects are long-lived per tool; their key lists become Sets once.
const setCache = new WeakMap<readonly string[], ReadonlySet<string>>();

/** The list as a Set (cached per array), or null when empty or not given. */
export function keySet(list: readonly string[] | undefined): ReadonlySet<string> | null {
  if (list === undefined || !Array.isArray(list) || list.length === 0) return null;
  let set = setCache.get(list);
  if (set === undefined) {
    set = new Set(list.filter((x) => typeof x === 'string'));
    setCache.set(list, set);
  }
  return set;
}
