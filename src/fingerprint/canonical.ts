import { BoundedSink } from './bounded-sink.js';
import { DerivedText } from './derived-text.js';
import { FreeTextProbe } from './free-text-probe.js';
import { hashText } from './hash.js';
import type { MaskedIds } from './masked-ids.js';
import { errorText } from './json-text.js';
import { ResultMask } from './result-mask.js';
import { echoOrder, type MaskSettings } from './volatile.js';
import { walk } from './walk.js';

/**
 * The canonical texts the fingerprints hash, each from one walk of the value
 * (walk.ts) with the consumers it needs: the plain text, the arguments' text
 * with its normalised twin, a result's masked text. docs/fingerprints.md is
 * the normative description; keep the two in step (the hashes are a public
 * contract: other languages must be able to reproduce them for plain JSON).
 */

export const DEFAULT_MAX_BYTES = 1_048_576;
export { MAX_DEPTH, MAX_NODES } from './walk.js';

/** Reads the effective size bound; an invalid value falls back to the default (hashing never throws; options are validated at configuration time). */
export function effectiveMaxBytes(maxBytes: number | undefined): number {
  return maxBytes !== undefined && Number.isInteger(maxBytes) && maxBytes >= 64 ? maxBytes : DEFAULT_MAX_BYTES;
}

/** Whether a finished text may hold free text: the probe saw a token long enough, or the text was cut (see FreeTextProbe). */
function mayHoldFreeText(text: BoundedSink, probe: FreeTextProbe): boolean {
  return probe.possible || text.overflowed;
}

/**
 * Canonical text of any value: RFC 8785 for JSON values, the documented
 * `$lg:` encodings for the rest. Never throws; bounded in time and size.
 */
export function canonicalize(value: unknown, maxBytes?: number): string {
  // Every function here catches: only a runtime failure (out of memory on a pathological input) can throw out of a walk.
  try {
    const limit = effectiveMaxBytes(maxBytes);
    const text = new BoundedSink(limit);
    walk(value, limit, { text, probe: null, derived: null, mask: null });
    return text.finish();
  } catch (error) {
    return errorText(error);
  }
}

/**
 * Canonical text of arguments and, when normalisation changes anything, of
 * the normalised arguments (`normalized` is null when it would equal `text`
 * by construction, and when `text` outgrew maxBytes: huge arguments are not
 * normalised). `mayHoldFreeText` false: `text` has no sketch. Never throws.
 */
export function canonicalizeArgs(
  value: unknown,
  maxBytes: number,
  ignore: ReadonlySet<string> | null,
): { text: string; normalized: string | null; mayHoldFreeText: boolean } {
  try {
    const text = new BoundedSink(maxBytes);
    const probe = new FreeTextProbe();
    const derived = new DerivedText(text, maxBytes, true, ignore);
    walk(value, maxBytes, { text, probe, derived, mask: null });
    return { text: text.finish(), normalized: derived.finish(), mayHoldFreeText: mayHoldFreeText(text, probe) };
  } catch (error) {
    return { text: errorText(error), normalized: null, mayHoldFreeText: true };
  }
}

/**
 * Canonical text of arguments with the `ignore` members dropped and nothing
 * else changed (argsShapeHash); the plain canonical text when it outgrows
 * maxBytes (huge arguments are not transformed). Never throws.
 */
export function canonicalizeWithout(value: unknown, maxBytes: number, ignore: ReadonlySet<string> | null): string {
  try {
    const text = new BoundedSink(maxBytes);
    const derived = new DerivedText(text, maxBytes, false, ignore);
    walk(value, maxBytes, { text, probe: null, derived, mask: null });
    return derived.finish() ?? text.finish();
  } catch (error) {
    return errorText(error);
  }
}

/** A masked canonical text, how many values in it are the volatile marker (`"$lg:volatile"`), and whether it may hold free text. */
export interface MaskedText {
  text: string;
  maskedValues: number;
  mayHoldFreeText: boolean;
}

/**
 * Canonical text of a result with volatile members and text masked. Echoes
 * of masked identifiers in strings are masked too: strings can come before
 * the identifier in key order, so a result that has one and repeats it
 * somewhere (or outgrew maxBytes, where the text cannot be searched) is
 * walked a second time knowing them; every other result is walked once.
 * Never throws.
 */
export function canonicalizeMasked(value: unknown, maxBytes: number, settings: MaskSettings): MaskedText {
  try {
    const once = maskedWalk(value, maxBytes, settings, null);
    const ids = once.ids.values;
    if (ids === null || (!once.overflowed && !ids.some((id) => once.result.text.includes(id)))) return once.result;
    return maskedWalk(value, maxBytes, settings, echoOrder(ids)).result;
  } catch (error) {
    return { text: errorText(error), maskedValues: 0, mayHoldFreeText: true };
  }
}

function maskedWalk(
  value: unknown,
  maxBytes: number,
  settings: MaskSettings,
  echoedIds: readonly string[] | null,
): { result: MaskedText; ids: MaskedIds; overflowed: boolean } {
  const text = new BoundedSink(maxBytes);
  const probe = new FreeTextProbe();
  const mask = new ResultMask(settings, echoedIds);
  walk(value, maxBytes, { text, probe, derived: null, mask });
  return {
    result: { text: text.finish(), maskedValues: mask.maskedValues, mayHoldFreeText: mayHoldFreeText(text, probe) },
    ids: mask.ids,
    overflowed: text.overflowed,
  };
}

/** `hashText(canonicalize(value, maxBytes))`: 16 hex chars. */
export function hashValue(value: unknown, maxBytes?: number): string {
  return hashText(canonicalize(value, maxBytes));
}
