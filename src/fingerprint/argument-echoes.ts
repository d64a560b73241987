import { parseMaybeJson } from './outcome.js';
import { echoOrder, MIN_ECHOED_ID_CHARS } from './volatile.js';

/**
 * The string values of a call's arguments that its error message may echo
 * ("old_str `…` did not appear verbatim in /repo/x.py", "table users_v2 not
 * found"): errorHash masks them, so a failure that quotes what was asked is
 * the same failure whatever was asked. Bounded: the first {@link MAX_ECHOES}
 * strings of at least MIN_ECHOED_ID_CHARS and at most {@link MAX_ECHO_CHARS}
 * characters, at most {@link MAX_ECHO_DEPTH} levels deep, in the order
 * maskEchoedIds takes them (longest first). Never throws.
 */
export function argumentEchoes(args: unknown): string[] {
  const out: string[] = [];
  try {
    collect(typeof args === 'string' ? parseMaybeJson(args) : args, 0, out);
  } catch {
    // A hostile getter or proxy: what was collected so far still masks.
  }
  return echoOrder(out);
}

export const MAX_ECHOES = 32;
export const MAX_ECHO_CHARS = 65_536;
export const MAX_ECHO_DEPTH = 4;

function collect(value: unknown, depth: number, out: string[]): void {
  if (out.length >= MAX_ECHOES) return;
  if (typeof value === 'string') {
    if (value.length >= MIN_ECHOED_ID_CHARS && value.length <= MAX_ECHO_CHARS && !out.includes(value)) out.push(value);
    return;
  }
  if (typeof value !== 'object' || value === null || depth >= MAX_ECHO_DEPTH) return;
  const values = Array.isArray(value) ? value : Object.values(value as Record<string, unknown>);
  for (const v of values) collect(v, depth + 1, out);
}
