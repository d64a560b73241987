import type { Attributes } from '@opentelemetry/api';
import type { Dialect } from '../types.js';

/** What detection needs from one LLM span (one model response), whichever instrumentation made it. */
export interface ModelSpanView {
  dialect: Exclude<Dialect, 'loopguard' | 'mcp'>;
  /** Input (prompt) tokens the response was given; undefined when not reported. */
  inputTokens: number | undefined;
  /** Output tokens of the response; undefined when not reported. */
  outputTokens: number | undefined;
  /** The (first) finish reason as the library spelled it; undefined when not reported. */
  finishReason: string | undefined;
  /** The response text, when the instrumentation recorded it (its content capture is on). */
  text: string | undefined;
}

export type ModelSpanReader = (attributes: Attributes) => ModelSpanView | undefined;
