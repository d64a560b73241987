import { observed } from './agent-status.js';
import { at, FormatError, isArray, isObject, lineOf, need } from './input.js';
import { parseArguments, textOf } from './text.js';
import { step, unlabelled, type FormatReader, type Run, type TrajectoryStep } from './types.js';

/** tau-bench's own action for a message to the user; its observation is the simulated user's reply. */
const RESPOND = 'respond';

function readMessages(where: string | undefined, path: string, messages: unknown[]): TrajectoryStep[] {
  const steps: TrajectoryStep[] = [];
  messages.forEach((m, i) => {
    if (!isObject(m)) throw new FormatError(where, at(path, i), 'must be a message object with "role"');
    if (m.role !== 'assistant') return;
    const calls = m.tool_calls === undefined || m.tool_calls === null ? [] : need(where, at(at(path, i), 'tool_calls'), m.tool_calls, isArray, 'must be an array');
    if (calls.length === 0) {
      // A message to the user: the reply is the next user message.
      const reply = messages.slice(i + 1).find((n) => isObject(n) && n.role === 'user');
      const output = isObject(reply) ? textOf(reply.content) : '';
      steps.push(step(RESPOND, { content: textOf(m.content) }, { result: output, hasResult: reply !== undefined }));
      return;
    }
    // Results follow in call order; tool-call ids repeat in published files, so they are paired by position.
    const results = messages.slice(i + 1, i + 1 + calls.length);
    calls.forEach((call, k) => {
      const p = at(at(at(path, i), 'tool_calls'), k);
      const fn = isObject(call) ? call.function : undefined;
      if (!isObject(fn) || typeof fn.name !== 'string' || fn.name === '') throw new FormatError(where, at(p, 'function.name'), 'must be a non-empty string');
      const reply = results[k];
      const answered = isObject(reply) && reply.role === 'tool';
      steps.push(step(fn.name, parseArguments(fn.arguments), answered ? observed({ tool: fn.name, output: textOf(reply.content) }) : {}));
    });
  });
  return steps;
}

/**
 * tau-bench results (`historical_trajectories/*.json`, `results/*.json`): a
 * list of `{task_id, trial, reward, traj}` where `traj` (or `messages`) is the
 * OpenAI-style conversation with assistant `tool_calls` and `tool` replies.
 */
export const tauBenchReader: FormatReader = {
  name: 'tau-bench',
  looksLike: 'tau-bench results (a list of {"task_id","trial","traj":[messages]})',
  detect: (first) => Array.isArray(first) && isObject(first[0]) && 'task_id' in first[0] && ('traj' in first[0] || 'messages' in first[0]),
  read(input) {
    const runs: Run[] = [];
    for (const v of input.values) {
      const where = lineOf(v);
      const entries = need(where, '(document)', v.value, isArray, 'must be a list of tau-bench results');
      entries.forEach((entry, i) => {
        const path = at('', i);
        if (!isObject(entry)) throw new FormatError(where, path, 'must be a result object');
        const key = 'traj' in entry ? 'traj' : 'messages';
        const messages = need(where, `${path}.${key}`, entry[key], isArray, 'must be an array of messages');
        const id = `task-${String(entry.task_id)}${entry.trial === undefined ? '' : `-trial-${String(entry.trial)}`}`;
        runs.push(unlabelled(id, `tau-bench task ${String(entry.task_id)}`, readMessages(where, `${path}.${key}`, messages)));
      });
    }
    return runs;
  },
};
