import type { AttributeValue, Attributes } from '@opentelemetry/api';

/**
 * Payloads above this many characters are kept as text instead of parsed:
 * the fingerprint of the text is just as stable, and parsing multi-megabyte
 * attribute values on every span end would cost more than it tells.
 */
export const MAX_PARSED_PAYLOAD_CHARS = 1_000_000;

export interface Recorded {
  present: boolean;
  value?: unknown;
}

const NOT_RECORDED: Recorded = { present: false };

/**
 * Reads one payload attribute. Instrumentations record arguments and results
 * as JSON text (OTel JS attributes cannot hold objects); text that is not JSON
 * (a plain string result, a truncated payload) is kept as the string it is.
 */
export function readPayload(attributes: Attributes, key: string): Recorded {
  const raw = attributes[key];
  if (raw === undefined || raw === null) return NOT_RECORDED;
  return { present: true, value: parsePayload(raw) };
}

export function parsePayload(raw: AttributeValue): unknown {
  if (typeof raw !== 'string') return raw;
  if (raw.length > MAX_PARSED_PAYLOAD_CHARS || !looksLikeJson(raw)) return raw;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

/** Cheap pre-check so ordinary prose never pays for a failed JSON.parse. */
function looksLikeJson(text: string): boolean {
  const first = text.trimStart().charAt(0);
  return (
    first === '{' || first === '[' || first === '"' || first === '-' ||
    (first >= '0' && first <= '9') || text === 'true' || text === 'false' || text === 'null'
  );
}

export function readString(attributes: Attributes, key: string): string | undefined {
  const value = attributes[key];
  if (typeof value === 'string') return value.length > 0 ? value : undefined;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** `execute_tool search` → `search`; undefined when the name does not carry the prefix. */
export function suffixAfter(name: string, prefix: string): string | undefined {
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length).trim();
  return rest.length > 0 ? rest : undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
