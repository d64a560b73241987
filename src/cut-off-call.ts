/**
 * A tool call cut in half: the model's response hit the output limit while
 * it was writing a tool call, so the call's JSON arguments end mid-way and
 * fail to parse. It belongs to the truncated response (the truncation
 * detector counts it), not to the run's tool calls: recording it as a new
 * failed call would let failure detectors count the limit as the tool's fault.
 */
import type { CallEnd } from './call-entry.js';

/** An error that says JSON could not be parsed (V8, Python's json, the AI SDK's InvalidToolInputError, OpenAI Agents' ModelBehaviorError). */
const JSON_PARSE_FAILURE = /\bjson\b[\s\S]*\b(pars\w*|invalid|unterminated|unexpected end|expecting|decod\w*)\b|\b(pars\w*|invalid|unterminated|unexpected end|expecting|decod\w*)\b[\s\S]*\bjson\b|JSONDecodeError|InvalidToolInput|InvalidToolArguments/i;

/** Characters of a call's argument text scanned at most: arguments this long that never close are cut off in all but name. */
const MAX_SCANNED_CHARS = 1_000_000;

/**
 * JSON text that starts an object or array and stops before closing it:
 * every bracket closed so far matched, every string so far was well formed,
 * and the text ends with brackets (or a string) still open.
 */
export function isCutOffJson(text: string): boolean {
  const stack: string[] = [];
  let inString = false;
  let escaped = false;
  let started = false;
  const end = Math.min(text.length, MAX_SCANNED_CHARS);
  for (let i = 0; i < end; i++) {
    const c = text[i]!;
    if (!started) {
      if (c === ' ' || c === '\n' || c === '\r' || c === '\t') continue;
      if (c !== '{' && c !== '[') return false;
      started = true;
    }
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{') stack.push('}');
    else if (c === '[') stack.push(']');
    else if (c === '}' || c === ']') {
      if (stack.pop() !== c) return false;
      // Closed before the end: complete (or followed by something else), not cut off.
      if (stack.length === 0) return false;
    }
  }
  return started && stack.length > 0;
}

/** The argument text of a call that could not be parsed: the bare string, or the one string value of a wrapper (`{"raw": "..."}`) a host put it in. */
function argumentText(args: unknown): string | undefined {
  if (typeof args === 'string') return args;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  const values = Object.values(args);
  return values.length === 1 && typeof values[0] === 'string' ? values[0] : undefined;
}

/**
 * Whether a call's arguments were cut off. When the arguments were recorded
 * they decide (parsed arguments were not cut off, whatever the tool's own
 * error says); when not, a failure saying JSON could not be parsed does.
 * Only meaningful right after a truncated response: the caller checks that.
 */
export function argumentsCutOff(hasArgs: boolean, args: unknown, end: CallEnd): boolean {
  if (hasArgs) {
    const text = argumentText(args);
    return text !== undefined && isCutOffJson(text);
  }
  if (end.kind !== 'failed') return false;
  return JSON_PARSE_FAILURE.test(`${end.errorType ?? ''} ${end.message ?? ''}`);
}
