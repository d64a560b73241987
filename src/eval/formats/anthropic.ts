import { at, FormatError, isArray, isObject, lineOf, need, type Input } from './input.js';
import { textOf } from './text.js';
import { messageList, stepsOf, type Shape } from './transcript.js';
import { unlabelled, type FormatReader, type Run } from './types.js';

/** A message's content blocks (none when the content is plain text). */
function blocksOf(m: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(m.content) ? m.content.filter(isObject) : [];
}

const usesTools = (m: unknown): boolean => isObject(m) && m.role === 'assistant' && blocksOf(m).some((b) => b.type === 'tool_use');

/**
 * A line of a Claude Code session file: a record of some `type` naming its
 * session (`sessionId`), or a summary of an earlier conversation (`leafUuid`),
 * which files resumed from one open with.
 */
const isSessionLine = (x: unknown): boolean =>
  isObject(x) && typeof x.type === 'string' && (typeof x.sessionId === 'string' || (x.type === 'summary' && typeof x.leafUuid === 'string'));

/** Where a message was written, for Claude Code lines (their `timestamp`); Messages API transcripts record none. */
const TIME = Symbol('time');
type Timed = Record<string, unknown> & { [TIME]?: unknown };

const MESSAGES: Shape = {
  entry: 'must be a message object with "role" and "content"',
  answers: (m) =>
    m.role !== 'user'
      ? []
      : blocksOf(m)
          .filter((b) => b.type === 'tool_result' && typeof b.tool_use_id === 'string')
          .map((b) => ({ id: b.tool_use_id as string, text: textOf(b.content), failed: b.is_error === true, time: (m as Timed)[TIME] })),
  calls(m, where, path) {
    if (m.role !== 'assistant') return [];
    return blocksOf(m).flatMap((b, k) => {
      if (b.type !== 'tool_use') return [];
      if (typeof b.name !== 'string') throw new FormatError(where, at(at(at(path, 'content'), k), 'name'), 'must be a string');
      return [{ name: b.name, args: b.input, id: b.id, time: (m as Timed)[TIME] }];
    });
  },
};

/** Messages API transcripts: one run a document or line. */
function readMessages(input: Input): Run[] {
  return input.values.map((v, n) => {
    const where = lineOf(v);
    const path = Array.isArray(v.value) ? '' : 'messages';
    const messages = need(where, path, messageList(v.value), isArray, 'must be an array of messages');
    const id = input.values.length > 1 ? `${input.name}-${n + 1}` : input.name;
    return unlabelled(id, 'Anthropic Messages transcript', stepsOf(where, path, messages, MESSAGES));
  });
}

/**
 * Claude Code session files: one line a record, the conversation's messages
 * under `message`, one run a session. A sub-agent's messages
 * (`isSidechain`) are another agent's loop and are left out.
 */
function readSessions(input: Input): Run[] {
  const sessions = new Map<string, Timed[]>();
  for (const v of input.values) {
    const line = v.value;
    if (!isObject(line)) throw new FormatError(lineOf(v), '(document)', 'must be a Claude Code session record (an object)');
    // Summaries, queue operations and other records carry no message: nothing was called there.
    if (!isObject(line.message) || line.isSidechain === true) continue;
    if (typeof line.sessionId !== 'string') throw new FormatError(lineOf(v), 'sessionId', 'must be a string on every message of a Claude Code session');
    const message: Timed = { ...line.message, [TIME]: line.timestamp };
    // Checked here, where the line is known: the steps are read from all lines at once.
    MESSAGES.calls(message, lineOf(v), 'message');
    const list = sessions.get(line.sessionId) ?? [];
    list.push(message);
    sessions.set(line.sessionId, list);
  }
  return [...sessions].map(([id, messages]) => unlabelled(id, 'Claude Code session', stepsOf(undefined, '', messages, MESSAGES)));
}

/**
 * Anthropic-format transcripts: a Messages API message list (bare, or a
 * request body's `messages`) whose assistant messages carry `tool_use`
 * blocks, each answered by a `tool_result` block with its `tool_use_id` in
 * a user message (`is_error: true` marks a failure); or a Claude Code
 * session file (JSON Lines, the same messages under `message`, with times).
 * Every answered call is a step: its name, its `input`, its result as the
 * observation (agent-status.ts classifies it).
 */
export const anthropicReader: FormatReader = {
  name: 'anthropic',
  looksLike:
    'Anthropic transcript (Messages API {"messages":[...]} with "tool_use" / "tool_result" blocks, or a Claude Code session .jsonl: records with "type" and "sessionId")',
  detect: (first) => isSessionLine(first) || messageList(first)?.some(usesTools) === true,
  read: (input) => (isSessionLine(input.values[0]?.value) ? readSessions(input) : readMessages(input)),
};
