import type { Attributes } from '@opentelemetry/api';

export type Dialect = 'loopguard' | 'genai' | 'ai-sdk' | 'openinference' | 'traceloop' | 'mcp';

/** What detection needs from one tool span, whichever instrumentation made it. */
export interface ToolSpanView {
  dialect: Dialect;
  tool: string;
  callId?: string;
  /** parsed arguments (JSON text is parsed; non-JSON text kept as string); undefined when not recorded */
  args?: unknown;
  hasArgs: boolean;
  result?: unknown;
  hasResult: boolean;
  /** run key hints these instrumentations set: session / conversation / thread ids */
  runKey?: string;
}

/** The part of a span the readers look at: an SDK span, a ReadableSpan and a decoded OTLP span all fit. */
export interface ToolSpanInput {
  name: string;
  kind: number;
  attributes: Attributes;
}

/** SpanKind values, copied so the readers need no runtime import of the API. */
export const SPAN_KIND_SERVER = 1;
