/**
 * Objects whose canonical form is their own enumerable members: plain objects
 * and class instances, but not the values canonicalize encodes otherwise
 * (Date, Map, Set, bytes, boxed primitives, RegExp, Error, anything with toJSON).
 */
export function isRecord(v: object): boolean {
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
