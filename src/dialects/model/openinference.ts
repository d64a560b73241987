import type { Attributes } from '@opentelemetry/api';
import * as A from '../attributes.js';
import type { ModelSpanView } from './types.js';
import { firstReason, flattenedTexts, joined, readCount } from './values.js';

/**
 * OpenInference LLM spans (`openinference.span.kind` = `LLM`): the
 * LangChain.js instrumentation and the other Arize instrumentations. The
 * text is in the flattened `llm.output_messages.N.message.content` (or, for
 * multi-part messages, `.message.contents.M.message_content.text`).
 */
export function readOpenInferenceModelSpan(attributes: Attributes): ModelSpanView | undefined {
  if (attributes[A.OPENINFERENCE_SPAN_KIND] !== A.OPENINFERENCE_SPAN_KIND_LLM) return undefined;
  const message = (i: number): string => `${A.OPENINFERENCE_OUTPUT_MESSAGES_PREFIX}${i}.message`;
  const whole = flattenedTexts(attributes, (i) => `${message(i)}.content`, (i) => `${message(i)}.role`);
  const parts = whole.length > 0 ? whole : flattenedTexts(attributes, (j) => `${message(0)}.contents.${j}.message_content.text`, () => `${message(0)}.role`);
  return {
    dialect: 'openinference',
    inputTokens: readCount(attributes, A.OPENINFERENCE_TOKEN_COUNT_PROMPT),
    outputTokens: readCount(attributes, A.OPENINFERENCE_TOKEN_COUNT_COMPLETION),
    finishReason: firstReason(attributes[A.OPENINFERENCE_FINISH_REASON]),
    text: joined(parts),
  };
}
