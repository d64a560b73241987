import type { Attributes } from '@opentelemetry/api';
import type { ModelTurn } from './detectors/model-turns.js';
import { readModelSpan } from './dialects/model/index.js';
import { chantRepeats } from './fingerprint/chanting.js';
import { textSketch } from './fingerprint/sketch.js';
import * as sc from './semconv.js';

/** The similarity sketch of a response text (`loopguard.output.sketch`): the text as one JSON string value; none for a short answer. */
export function outputSketch(text: string): string | undefined {
  return textSketch(JSON.stringify(text));
}

/**
 * What loopguard records on an LLM span about a response text it saw in
 * process, instead of the text: its similarity sketch
 * (`loopguard.output.sketch`, none for a short answer) and, when the
 * response chants, how many times the chanted passage occurs
 * (`loopguard.output.repetition`). Whoever sees the text (the eval replay,
 * a framework adapter) sets these on the span; the processor reads them.
 */
export function outputTextAttributes(text: string): Attributes {
  const attributes: Attributes = {};
  const sketch = outputSketch(text);
  if (sketch !== undefined) attributes[sc.ATTR_LOOPGUARD_OUTPUT_SKETCH] = sketch;
  const repeats = chantRepeats(text);
  if (repeats > 0) attributes[sc.ATTR_LOOPGUARD_OUTPUT_REPETITION] = repeats;
  return attributes;
}

/** A model turn as read from its LLM span, with what the total-token fuse and the span need besides. */
export type ModelResponse = ModelTurn & { inputTokens: number; computed?: Attributes };

/**
 * The model response an LLM span records (GenAI, AI SDK, OpenInference or
 * Traceloop dialect: ./dialects/model), or undefined for any other span.
 * The text is known by what loopguard computed from it where it was seen,
 * or, when the user's instrumentation captured it, computed from it here
 * (`computed` then holds the attributes to add, so the span says it too).
 * `inputTokens` is what the response was given, for the total-token fuse.
 */
export function readModelTurn(attributes: Attributes): ModelResponse | undefined {
  const view = readModelSpan(attributes);
  if (view === undefined) return undefined;
  const turn = {
    inputTokens: view.inputTokens ?? 0,
    outputTokens: view.outputTokens !== undefined && view.outputTokens > 0 ? view.outputTokens : 0,
    finishReason: view.finishReason?.toLowerCase(),
  };
  const ownSketch = attributes[sc.ATTR_LOOPGUARD_OUTPUT_SKETCH];
  const ownRepeats = attributes[sc.ATTR_LOOPGUARD_OUTPUT_REPETITION];
  if (typeof ownSketch === 'string' || typeof ownRepeats === 'number') {
    return { ...turn, sketch: typeof ownSketch === 'string' ? ownSketch : undefined, chant: typeof ownRepeats === 'number' ? ownRepeats : undefined };
  }
  if (view.text === undefined) return turn;
  const computed = outputTextAttributes(view.text);
  const sketch = computed[sc.ATTR_LOOPGUARD_OUTPUT_SKETCH];
  const repeats = computed[sc.ATTR_LOOPGUARD_OUTPUT_REPETITION];
  return { ...turn, sketch: typeof sketch === 'string' ? sketch : undefined, chant: typeof repeats === 'number' ? repeats : undefined, computed };
}
