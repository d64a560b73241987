import type { Attributes } from '@opentelemetry/api';
import { readAiSdkModelSpan } from './ai-sdk.js';
import { readGenAiModelSpan } from './genai.js';
import { readOpenInferenceModelSpan } from './openinference.js';
import { readTraceloopModelSpan } from './traceloop.js';
import type { ModelSpanReader, ModelSpanView } from './types.js';

export type { ModelSpanView } from './types.js';

/**
 * Most specific first, and the first that recognises a span reads it whole,
 * so a span carrying several dialects (OpenLLMetry copies its names onto the
 * AI SDK's spans; newer OpenLLMetry sets both `llm.request.type` and
 * `gen_ai.operation.name`) is one response, read once.
 */
const READERS: readonly ModelSpanReader[] = [readAiSdkModelSpan, readOpenInferenceModelSpan, readTraceloopModelSpan, readGenAiModelSpan];

/** The model response an LLM span records, in any dialect loopguard reads; undefined for any other span. */
export function readModelSpan(attributes: Attributes): ModelSpanView | undefined {
  for (const read of READERS) {
    const view = read(attributes);
    if (view !== undefined) return view;
  }
  return undefined;
}
