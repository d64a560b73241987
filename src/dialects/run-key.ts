import type { Attributes } from '@opentelemetry/api';
import { RUN_KEY_ATTRIBUTES } from './attributes.js';
import { readString } from './payload.js';

/** The first session / conversation / thread id another instrumentation put on the span, if any. */
export function readRunKey(attributes: Attributes): string | undefined {
  for (const key of RUN_KEY_ATTRIBUTES) {
    const value = readString(attributes, key);
    if (value !== undefined) return value;
  }
  return undefined;
}
