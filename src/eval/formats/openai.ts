import { observed } from './agent-status.js';
import { at, FormatError, isArray, isObject, lineOf, need, type Input, type InputValue } from './input.js';
import { isMiniSweAgentTrajectory } from './mini-swe-agent.js';
import { parseArguments, textOf } from './text.js';
import { step, unlabelled, type FormatReader, type Run, type TrajectoryStep } from './types.js';

/** The items of a Responses API run: a bare item list, a Response's `output`, or the Response a record holds under `response`. */
function responseItems(doc: unknown): unknown[] | undefined {
  if (Array.isArray(doc)) return doc;
  if (!isObject(doc)) return undefined;
  const response = isObject(doc.response) ? doc.response : doc;
  return response.object === 'response' && Array.isArray(response.output) ? response.output : undefined;
}

const isCallItem = (x: unknown): boolean => isObject(x) && (x.type === 'function_call' || x.type === 'function_call_output');

/** The messages of a Chat Completions transcript: a bare message list, or a request body's `messages`. */
function chatMessages(doc: unknown): unknown[] | undefined {
  if (Array.isArray(doc)) return doc;
  return isObject(doc) && Array.isArray(doc.messages) ? doc.messages : undefined;
}

const callsTools = (m: unknown): boolean => isObject(m) && m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0;

function isResponses(first: unknown): boolean {
  return responseItems(first)?.some(isCallItem) === true;
}

function isChat(first: unknown): boolean {
  const messages = chatMessages(first);
  return messages !== undefined && messages.some(callsTools) && !isMiniSweAgentTrajectory(first, messages);
}

/**
 * A tool's output as an observation. Outputs that are a JSON object with an
 * exit code (`exit_code`, `returncode`, `exitCode`: what shell tools return)
 * give it, so a failed command reads as failed; `is_error: true` (MCP's
 * flag) marks a failure whatever the text says.
 */
function observation(tool: string, args: unknown, output: string): TrajectoryStep {
  const parsed = output.trimStart().startsWith('{') ? parseArguments(output) : undefined;
  const fields = isObject(parsed) ? parsed : {};
  const exitCode = [fields.exit_code, fields.returncode, fields.exitCode].find((c): c is number => typeof c === 'number');
  const command = isObject(args) && typeof args.command === 'string' ? args.command : undefined;
  return step(tool, args, observed({ tool, command, output, exitCode, failed: fields.is_error === true }));
}

/** One tool call of a transcript, and the id its answer carries. */
interface Call {
  name: string;
  args: unknown;
  id: unknown;
}

/** How one transcript shape holds its calls and their answers. */
interface Shape {
  /** What every entry of the list must be. */
  entry: string;
  /** The answer an entry holds: the id of the call it answers, and its text. */
  answer(entry: Record<string, unknown>): [string, string] | undefined;
  /** The calls an entry makes, in order; throws FormatError naming the field that is wrong. */
  calls(entry: Record<string, unknown>, where: string | undefined, path: string): Call[];
}

const CHAT: Shape = {
  entry: 'must be a message object with "role"',
  answer: (m) => (m.role === 'tool' && typeof m.tool_call_id === 'string' ? [m.tool_call_id, textOf(m.content)] : undefined),
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
  answer: (item) => (item.type === 'function_call_output' && typeof item.call_id === 'string' ? [item.call_id, textOf(item.output)] : undefined),
  calls(item, where, path) {
    if (item.type !== 'function_call') return [];
    if (typeof item.name !== 'string') throw new FormatError(where, at(path, 'name'), 'must be a string');
    return [{ name: item.name, args: item.arguments, id: item.call_id }];
  },
};

/** The steps of one transcript: every call, in order, that an entry of the list answers. */
function stepsOf(where: string | undefined, path: string, entries: unknown[], shape: Shape): TrajectoryStep[] {
  const answers = new Map<string, string>();
  entries.forEach((entry, i) => {
    if (!isObject(entry)) throw new FormatError(where, at(path, i), shape.entry);
    const answer = shape.answer(entry);
    if (answer !== undefined) answers.set(answer[0], answer[1]);
  });
  const steps: TrajectoryStep[] = [];
  entries.forEach((entry, i) => {
    for (const call of shape.calls(entry as Record<string, unknown>, where, at(path, i))) {
      const output = typeof call.id === 'string' ? answers.get(call.id) : undefined;
      // A call the transcript never answers (the run stopped first) did nothing the run saw.
      if (output !== undefined) steps.push(observation(call.name, parseArguments(call.args), output));
    }
  });
  return steps;
}

function readRun(input: Input, v: InputValue, n: number, responses: boolean): Run {
  const where = lineOf(v);
  const doc = v.value;
  const fallback = input.values.length > 1 ? `${input.name}-${n + 1}` : input.name;
  if (!responses) {
    const path = Array.isArray(doc) ? '' : 'messages';
    const messages = need(where, path, chatMessages(doc), isArray, 'must be an array of messages');
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
