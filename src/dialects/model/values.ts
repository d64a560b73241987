import type { Attributes } from '@opentelemetry/api';

/** Messages read from a flattened list (`prefix.0.…`, `prefix.1.…`): a response has a handful; the bound keeps a hostile span cheap. */
const MAX_FLATTENED_MESSAGES = 64;

/** Roles of the model's own messages (`model` is Gemini's). */
const MODEL_ROLES: ReadonlySet<unknown> = new Set(['assistant', 'model']);

/** The first of `keys` holding a finite, non-negative number. */
export function readCount(attributes: Attributes, ...keys: string[]): number | undefined {
  for (const key of keys) {
    const value = attributes[key];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  }
  return undefined;
}

/** A finish reason recorded as one string or as a list (`gen_ai.response.finish_reasons`): the first. */
export function firstReason(value: unknown): string | undefined {
  const first: unknown = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' && first.length > 0 ? first : undefined;
}

/**
 * The texts of a flattened message list, in order: `textKey(i)` for
 * i = 0, 1, … while present, leaving out a message whose `roleKey(i)` names
 * a role other than the model's.
 */
export function flattenedTexts(attributes: Attributes, textKey: (i: number) => string, roleKey: (i: number) => string): string[] {
  const texts: string[] = [];
  for (let i = 0; i < MAX_FLATTENED_MESSAGES; i++) {
    const value = attributes[textKey(i)];
    if (value === undefined) break;
    const role = attributes[roleKey(i)];
    if (typeof value === 'string' && value.length > 0 && (role === undefined || MODEL_ROLES.has(role))) texts.push(value);
  }
  return texts;
}

export function joined(texts: string[]): string | undefined {
  return texts.length === 0 ? undefined : texts.join('\n');
}
