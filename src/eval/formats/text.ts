import { isObject } from './input.js';

/** A message's content as text: a string, or the text parts of a content-part list (OpenAI / Anthropic style). */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part === 'string' ? part : isObject(part) && typeof part.text === 'string' ? part.text : '')).join('');
  }
  if (content === undefined || content === null) return '';
  return JSON.stringify(content);
}

/** Tool-call arguments as the model sent them: JSON text is parsed, anything else kept as it is. */
export function parseArguments(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw ?? {};
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

/** Milliseconds between two ISO timestamps (or epoch seconds); undefined when either is missing or unreadable. */
export function msBetween(from: unknown, to: unknown): number | undefined {
  const ms = (v: unknown): number | undefined => {
    if (typeof v === 'number' && Number.isFinite(v)) return v * 1000;
    if (typeof v !== 'string') return undefined;
    const parsed = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(v) ? v : `${v}Z`);
    return Number.isNaN(parsed) ? undefined : parsed;
  };
  const a = ms(from);
  const b = ms(to);
  return a === undefined || b === undefined ? undefined : Math.max(0, Math.round(b - a));
}
