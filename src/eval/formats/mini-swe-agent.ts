import { observed } from './agent-status.js';
import { at, FormatError, isArray, isObject, lineOf, need } from './input.js';
import { msBetween, parseArguments, textOf } from './text.js';
import { step, unlabelled, type FormatReader, type TrajectoryStep } from './types.js';

/** The command block of a text-based mini-SWE-agent response (```bash, ```mswea_bash_command or the XML form). */
const COMMAND_BLOCK = /```(?:bash|sh|mswea_bash_command)[^\n]*\n([\s\S]*?)\n?```|<mswea_bash_command>([\s\S]*?)<\/mswea_bash_command>/g;
const RETURN_CODE = /<returncode>\s*(-?\d+)\s*<\/returncode>/;
const OUTPUT = /<output(?:_head|_tail)?>\n?([\s\S]*?)<\/output(?:_head|_tail)?>/g;

function commandsOf(message: Record<string, unknown>): string[] {
  const extra = message.extra;
  // mini-SWE-agent 1.x/2.x records the parsed actions beside the raw response.
  if (isObject(extra) && Array.isArray(extra.actions)) {
    const commands = extra.actions.map((a) => (isObject(a) && typeof a.command === 'string' ? a.command : undefined)).filter((c) => c !== undefined);
    if (commands.length > 0) return commands;
  }
  if (Array.isArray(message.tool_calls)) {
    const commands = message.tool_calls.map((c) => {
      const args = isObject(c) && isObject(c.function) ? parseArguments(c.function.arguments) : undefined;
      return isObject(args) && typeof args.command === 'string' ? args.command : undefined;
    });
    if (commands.every((c) => c !== undefined) && commands.length > 0) return commands as string[];
  }
  // The agent runs a response with exactly one block; any other count is a format error it answers with a reminder instead.
  const blocks = [...textOf(message.content).matchAll(COMMAND_BLOCK)];
  return blocks.length === 1 ? [(blocks[0]![1] ?? blocks[0]![2] ?? '').trim()] : [];
}

/**
 * Is this message list a mini-SWE-agent trajectory rather than any other chat
 * transcript? The file names its format or the agent's version, or its
 * observations are the agent's `<returncode>` blocks.
 */
export function isMiniSweAgentTrajectory(doc: unknown, messages: unknown[]): boolean {
  if (isObject(doc)) {
    if (typeof doc.trajectory_format === 'string' && doc.trajectory_format.startsWith('mini-swe-agent')) return true;
    if (isObject(doc.info) && 'mini_version' in doc.info) return true;
  }
  return messages.some((m) => isObject(m) && m.role !== 'assistant' && RETURN_CODE.test(textOf(m.content)));
}

/**
 * The observation of a command: `<returncode>` and `<output>` (text configs),
 * `{"returncode","output"}` (tool-calling configs), or, for the submitting
 * command, the bare submission the agent ends with (no exit code).
 */
function observationOf(message: unknown): { exitCode: number | undefined; output: string } | undefined {
  if (!isObject(message) || message.role === 'assistant' || message.role === 'system') return undefined;
  const text = textOf(message.content);
  const code = RETURN_CODE.exec(text);
  if (code) {
    const parts = [...text.matchAll(OUTPUT)].map((m) => m[1] ?? '');
    return { exitCode: Number(code[1]), output: parts.length > 0 ? parts.join('\n') : text.replace(RETURN_CODE, '').trim() };
  }
  const json = parseArguments(text.trim());
  if (isObject(json) && typeof json.returncode === 'number') {
    return { exitCode: json.returncode, output: typeof json.output === 'string' ? json.output : textOf(json.output) };
  }
  return { exitCode: undefined, output: text };
}

/**
 * mini-SWE-agent trajectories (`*.traj.json`): `{"messages":[...], "info":{...},
 * "instance_id"?}` as the agent saves it, or the bare message list. Every assistant message
 * runs one bash command (a fenced block, or a tool call in tool-calling
 * configs); the next message holds its `<returncode>` and output. A response
 * the agent rejected for its format runs nothing and is not a step.
 */
export const miniSweAgentReader: FormatReader = {
  name: 'mini-swe-agent',
  looksLike: 'mini-SWE-agent trajectory ({"messages":[{"role","content"}...]} with bash blocks and <returncode> observations)',
  detect: (first) =>
    (isObject(first) && Array.isArray(first.messages) && !('task_id' in first)) ||
    (Array.isArray(first) && isObject(first[0]) && typeof first[0].role === 'string'),
  read(input) {
    return input.values.map((v, n) => {
      const where = lineOf(v);
      const doc = v.value;
      const path = Array.isArray(doc) ? '' : 'messages';
      const messages = need(where, path, Array.isArray(doc) ? doc : isObject(doc) ? doc.messages : undefined, isArray, 'must be an array of messages');
      const steps: TrajectoryStep[] = [];
      // Newer versions stamp each message (`extra.timestamp`, epoch seconds): the model's answer starts a step, its observation ends it.
      const stamp = (m: unknown): unknown => (isObject(m) && isObject(m.extra) ? m.extra.timestamp : undefined);
      const origin = messages.map(stamp).find((t) => t !== undefined);
      messages.forEach((m, i) => {
        if (!isObject(m)) throw new FormatError(where, at(path, i), 'must be a message object with "role"');
        if (typeof m.role !== 'string') throw new FormatError(where, at(at(path, i), 'role'), 'must be a string');
        if (m.role !== 'assistant') return;
        const commands = commandsOf(m);
        commands.forEach((command, k) => {
          const observation = observationOf(messages[i + 1 + k]);
          if (observation === undefined) return;
          const timing = { t: msBetween(origin, stamp(m)), durationMs: msBetween(stamp(m), stamp(messages[i + 1 + k])) };
          steps.push(step('bash', { command }, { ...observed({ tool: 'bash', command, ...observation }), ...timing }));
        });
      });
      const info = isObject(doc) && isObject(doc.info) ? doc.info : {};
      const instance = [isObject(doc) ? doc.instance_id : undefined, info.instance_id].find((x): x is string => typeof x === 'string');
      const id = instance ?? (input.values.length > 1 ? `${input.name}-${n + 1}` : input.name);
      return unlabelled(id, 'mini-SWE-agent run', steps);
    });
  },
};
