import { at, FormatError, isArray, isObject, lineOf, need, type Input, type InputValue } from './input.js';
import { isMiniSweAgentTrajectory } from './mini-swe-agent.js';
import { textOf } from './text.js';
import { messageList, stepsOf, type Shape } from './transcript.js';
import { unlabelled, type FormatReader, type Run } from './types.js';

/** The items of a Responses API run: a bare item list, a Response's `output`, or the Response a record holds under `response`. */
function responseItems(doc: unknown): unknown[] | undefined {
  if (Array.isArray(doc)) return doc;
  if (!isObject(doc)) return undefined;
  const response = isObject(doc.response) ? doc.response : doc;
  return response.object === 'response' && Array.isArray(response.output) ? response.output : undefined;
}

const isCallItem = (x: unknown): boolean => isObject(x) && (x.type === 'function_call' || x.type === 'function_call_output');

const callsTools = (m: unknown): boolean => isObject(m) && m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0;

function isResponses(first: unknown): boolean {
  return responseItems(first)?.some(isCallItem) === true;
}

function isChat(first: unknown): boolean {
  const messages = messageList(first);
  return messages !== undefined && messages.some(callsTools) && !isMiniSweAgentTrajectory(first, messages);
}

const CHAT: Shape = {
  entry: 'must be a message object with "role"',
  answers: (m) => (m.role === 'tool' && typeof m.tool_call_id === 'string' ? [{ id: m.tool_call_id, text: textOf(m.content), failed: false }] : []),
  calls(m, where, path) {
    if (!callsTools(m)) return [];
    return (m.tool_calls as unknown[]).map((call, k) => {
      const callPath = at(at(path, 'tool_calls'), k);
      if (!isObject(call) || !isObject(call.function)) throw new FormatError(where, at(callPath, 'function'), 'must be an object with "name" and "arguments"');
      const name = call.function.name;
      if (typeof name !== 'string') throw new FormatError(where, at(at(callPath, 'function'), 'name'), 'must be a string');
      return { name, args: call.function.arguments, id: call.id };
    });
  },
};

const RESPONSES: Shape = {
  entry: 'must be an item object with "type"',
  answers: (item) =>
    item.type === 'function_call_output' && typeof item.call_id === 'string' ? [{ id: item.call_id, text: textOf(item.output), failed: false }] : [],
  calls(item, where, path) {
    if (item.type !== 'function_call') return [];
    if (typeof item.name !== 'string') throw new FormatError(where, at(path, 'name'), 'must be a string');
    return [{ name: item.name, args: item.arguments, id: item.call_id }];
  },
};

function readRun(input: Input, v: InputValue, n: number, responses: boolean): Run {
  const where = lineOf(v);
  const doc = v.value;
  const fallback = input.values.length > 1 ? `${input.name}-${n + 1}` : input.name;
  if (!responses) {
    const path = Array.isArray(doc) ? '' : 'messages';
    const messages = need(where, path, messageList(doc), isArray, 'must be an array of messages');
    return unlabelled(fallback, 'OpenAI chat transcript', stepsOf(where, path, messages, CHAT));
  }
  const wrapped = isObject(doc) && isObject(doc.response);
  const path = Array.isArray(doc) ? '' : wrapped ? 'response.output' : 'output';
  const items = need(where, path, responseItems(doc), isArray, 'must be an array of Responses API items');
  const response = isObject(doc) ? (wrapped ? (doc.response as Record<string, unknown>) : doc) : {};
  return unlabelled(typeof response.id === 'string' ? response.id : fallback, 'OpenAI Responses run', stepsOf(where, path, items, RESPONSES));
}

/**
 * OpenAI-format transcripts, as agents on the OpenAI APIs log them. A Chat
 * Completions message list (bare, or a request body's `messages`) whose
 * assistant messages carry `tool_calls`, each answered by a `role: "tool"`
 * message with its `tool_call_id`; or Responses API items (bare, as the
 * OpenAI Agents SDK's `to_input_list()` gives them; a Response's `output`;
 * or a record holding the Response under `response`), a `function_call`
 * answered by the `function_call_output` with its `call_id`. Every answered
 * call is a step: its name, its parsed arguments, its output as the
 * observation (agent-status.ts classifies it). mini-SWE-agent's tool-calling
 * trajectories are chat transcripts too, and stay with their own reader.
 */
export const openAiReader: FormatReader = {
  name: 'openai',
  looksLike:
    'OpenAI transcript (Chat Completions {"messages":[...]} with assistant "tool_calls" and "tool" messages, or Responses API items with "function_call" / "function_call_output")',
  detect: (first) => isResponses(first) || isChat(first),
  read(input) {
    const responses = isResponses(input.values[0]?.value);
    return input.values.map((v, n) => readRun(input, v, n, responses));
  },
};
