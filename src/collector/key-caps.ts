import { createHash } from 'node:crypto';
import type { Attributes } from '@opentelemetry/api';
import { AI_SDK_TOOL_CALL_NAME, GENAI_TOOL_NAME, MCP_TOOL_NAME_DRAFT, OPENINFERENCE_TOOL_NAME, RUN_KEY_ATTRIBUTES } from '../dialects/attributes.js';

/** The attributes whose values the engine keeps as keys: run keys (map keys, kept per run) and tool names (interned, metric labels). */
const KEY_ATTRIBUTES: readonly string[] = [...RUN_KEY_ATTRIBUTES, GENAI_TOOL_NAME, AI_SDK_TOOL_CALL_NAME, OPENINFERENCE_TOOL_NAME, MCP_TOOL_NAME_DRAFT];
const DIGEST_CHARS = 16;

/**
 * Bounds the values the detection engine keeps as keys. A value longer than
 * `maxLength` is seen by detection as its first characters plus a digest of
 * the whole, so distinct values stay distinct while one sender cannot make the
 * engine hold (or `/metrics` print) megabytes per run or per tool. Only the
 * detection view changes: the forwarded span keeps the original value.
 */
export class KeyValueCap {
  private readonly keys: readonly string[];

  constructor(
    private readonly maxLength: number,
    extraKeys: readonly (string | undefined)[] = [],
  ) {
    this.keys = [...KEY_ATTRIBUTES, ...extraKeys.filter((k): k is string => typeof k === 'string')];
  }

  apply(attributes: Attributes): void {
    for (const key of this.keys) {
      const value = attributes[key];
      if (typeof value === 'string' && value.length > this.maxLength) attributes[key] = this.key(value);
    }
  }

  /** A value as the engine knows it (for verdict lookups by the original run key). */
  key(value: string): string {
    if (value.length <= this.maxLength) return value;
    const digest = createHash('sha256').update(value).digest('hex').slice(0, DIGEST_CHARS);
    return `${value.slice(0, this.maxLength - DIGEST_CHARS - 1)}…${digest}`;
  }
}
