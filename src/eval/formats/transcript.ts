import { observed } from './agent-status.js';
import { at, FormatError, isObject } from './input.js';
import { msBetween, parseArguments } from './text.js';
import type { ToolStep } from '../corpus.js';
import { step, type TrajectoryStep } from './types.js';

/** One tool call of a model transcript, and the id its answer carries. */
export interface Call {
  name: string;
  args: unknown;
  id: unknown;
  /** When the call was made (ISO time or epoch seconds), where the log records it. */
  time?: unknown;
}

/** One answer to a call: the id of the call, what the tool returned, whether the log marks it failed. */
export interface Answer {
  id: string;
  text: string;
  failed: boolean;
  time?: unknown;
}

/** How one transcript shape (OpenAI chat, OpenAI Responses, Anthropic messages) holds its calls and their answers. */
export interface Shape {
  /** What every entry of the list must be. */
  entry: string;
  /** The answers an entry holds. */
  answers(entry: Record<string, unknown>): Answer[];
  /** The calls an entry makes, in order; throws FormatError naming the field that is wrong. */
  calls(entry: Record<string, unknown>, where: string | undefined, path: string): Call[];
}

/** The messages of a model transcript: a bare message list, or a request body's `messages`. */
export function messageList(doc: unknown): unknown[] | undefined {
  if (Array.isArray(doc)) return doc;
  return isObject(doc) && Array.isArray(doc.messages) ? doc.messages : undefined;
}

/**
 * A tool's output as an observation. Outputs that are a JSON object with an
 * exit code (`exit_code`, `returncode`, `exitCode`: what shell tools return)
 * give it, so a failed command reads as failed; `is_error: true` in it
 * (MCP's flag) or on the answer marks a failure whatever the text says.
 */
function observation(call: Call, answer: Answer, origin: unknown): ToolStep {
  const output = answer.text;
  const parsed = output.trimStart().startsWith('{') ? parseArguments(output) : undefined;
  const fields = isObject(parsed) ? parsed : {};
  const exitCode = [fields.exit_code, fields.returncode, fields.exitCode].find((c): c is number => typeof c === 'number');
  const args = parseArguments(call.args);
  const command = isObject(args) && typeof args.command === 'string' ? args.command : undefined;
  const timing = { t: msBetween(origin, call.time), durationMs: msBetween(call.time, answer.time) };
  return step(call.name, args, { ...observed({ tool: call.name, command, output, exitCode, failed: answer.failed || fields.is_error === true }), ...timing });
}

/**
 * The steps of one transcript: every call, in order, that an entry of the
 * list answers, with `t` from the first call's time and `durationMs` up to
 * its answer where the log records times.
 */
export function stepsOf(where: string | undefined, path: string, entries: unknown[], shape: Shape): TrajectoryStep[] {
  const answers = new Map<string, Answer>();
  entries.forEach((entry, i) => {
    if (!isObject(entry)) throw new FormatError(where, at(path, i), shape.entry);
    for (const answer of shape.answers(entry)) answers.set(answer.id, answer);
  });
  const steps: TrajectoryStep[] = [];
  let origin: unknown;
  entries.forEach((entry, i) => {
    for (const call of shape.calls(entry as Record<string, unknown>, where, at(path, i))) {
      const answer = typeof call.id === 'string' ? answers.get(call.id) : undefined;
      // A call the transcript never answers (the run stopped first) did nothing the run saw.
      if (answer === undefined) continue;
      origin ??= call.time;
      steps.push(observation(call, answer, origin));
    }
  });
  return steps;
}
