import { observed } from './agent-status.js';
import { at, FormatError, isArray, isObject, lineOf, need } from './input.js';
import { textOf } from './text.js';
import { step, unlabelled, type FormatReader, type TrajectoryStep } from './types.js';

/**
 * SWE-agent's own commands (its bundled tools, 0.x and 1.x): an action that
 * starts with one of these is that tool; any other action is a shell command.
 */
const SWE_AGENT_COMMANDS = new Set([
  'open', 'goto', 'scroll_up', 'scroll_down', 'create', 'edit', 'insert', 'search_dir', 'search_file', 'find_file',
  'submit', 'str_replace_editor', 'filemap', 'review_on_submit', 'exit_forfeit', 'exit_cost', 'exit_context', 'exit_format',
]);

function toolOf(action: string): string {
  const first = action.trim().split(/\s+/, 1)[0] ?? '';
  return SWE_AGENT_COMMANDS.has(first) ? first : 'bash';
}

interface Turn {
  action: string;
  observation: string;
  seconds: number | undefined;
}

/** The `trajectory` list: one `{action, observation, execution_time?}` per step. */
function turnsOfTrajectory(where: string | undefined, list: unknown[]): Turn[] {
  return list.map((item, i) => {
    const path = at('trajectory', i);
    if (!isObject(item)) throw new FormatError(where, path, 'must be a step object with "action" and "observation"');
    if (typeof item.action !== 'string') throw new FormatError(where, at(path, 'action'), 'must be a string');
    const seconds = typeof item.execution_time === 'number' ? item.execution_time : undefined;
    return { action: item.action, observation: textOf(item.observation), seconds };
  });
}

/** The `history` list only (no `trajectory`): assistant messages carry `action`, the next message is its observation. */
function turnsOfHistory(where: string | undefined, list: unknown[]): Turn[] {
  const turns: Turn[] = [];
  list.forEach((m, i) => {
    if (!isObject(m)) throw new FormatError(where, at('history', i), 'must be a message object with "role"');
    if (m.role !== 'assistant' || typeof m.action !== 'string') return;
    const next = list[i + 1];
    turns.push({ action: m.action, observation: isObject(next) ? textOf(next.content) : '', seconds: undefined });
  });
  return turns;
}

/**
 * SWE-agent trajectories (`*.traj`): `{"trajectory":[{action, observation,
 * ...}], "history":[...], "info":{...}}`. The tool is the SWE-agent command
 * an action starts with (`edit`, `find_file`…), else `bash`; the arguments are
 * the action text. SWE-agent records no exit codes, so outcomes come from the
 * observation text alone.
 */
export const sweAgentReader: FormatReader = {
  name: 'swe-agent',
  looksLike: 'SWE-agent trajectory ({"trajectory":[{"action","observation"}...]} or {"history":[...]})',
  detect: (first) =>
    isObject(first) &&
    (Array.isArray(first.trajectory) ||
      (Array.isArray(first.history) && isObject(first.history[0]) && typeof first.history[0].role === 'string')),
  read(input) {
    return input.values.map((v, n) => {
      const where = lineOf(v);
      const doc = need(where, '(document)', v.value, isObject, 'must be a SWE-agent trajectory object');
      const turns =
        doc.trajectory !== undefined
          ? turnsOfTrajectory(where, need(where, 'trajectory', doc.trajectory, isArray, 'must be an array of steps'))
          : turnsOfHistory(where, need(where, 'history', doc.history, isArray, 'must be an array of messages'));
      const steps: TrajectoryStep[] = turns
        .filter((turn) => turn.action.trim() !== '')
        .map((turn) => {
          const tool = toolOf(turn.action);
          const command = turn.action.trim();
          const durationMs = turn.seconds === undefined ? undefined : Math.round(turn.seconds * 1000);
          return step(tool, { command }, { ...observed({ tool, command: tool === 'bash' ? command : undefined, output: turn.observation }), durationMs });
        });
      const id = input.values.length > 1 ? `${input.name}-${n + 1}` : input.name;
      return unlabelled(id, 'SWE-agent run', steps);
    });
  },
};
