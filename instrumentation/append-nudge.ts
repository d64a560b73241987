function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Appends the nudge where the model will read it; other result types are left as they are. */
export function appendNudge(result: unknown, nudge: string): unknown {
  if (typeof result === 'string') return `${result}\n\n${nudge}`;
  if (isPlainObject(result)) return { ...result, loopguard_notice: nudge };
  return result;
}
