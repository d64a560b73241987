import { observed } from './agent-status.js';
import { at, FormatError, isArray, isObject, lineOf, need } from './input.js';
import { msBetween, parseArguments, textOf } from './text.js';
import { step, unlabelled, type FormatReader, type Run, type TrajectoryStep } from './types.js';

type Event = Record<string, unknown>;

/** Actions that are conversation or bookkeeping, not tool calls. */
const NOT_TOOL_CALLS = new Set(['system', 'message', 'recall', 'change_agent_state', 'null', 'finish', 'reject', 'condensation', 'condensation_request']);
/** Fields of an action's `args` that describe the event, not the call. */
const NOT_ARGUMENTS = new Set([
  'thought', 'is_input', 'confirmation_state', 'security_risk', 'hidden', 'blocking', 'is_confirmed', 'action_risk',
  'keep_prompt', 'kernel_init_code', 'impl_source', 'include_extra', 'wait_for_response', 'images_urls', 'action', 'reasoning_content',
]);

/** An OpenHands event is an action or an observation, never both (a SWE-agent step has both), and no chat message (no `role`). */
const isEvent = (e: unknown): e is Event => isObject(e) && !('role' in e) && 'action' in e !== 'observation' in e;
const holdsEvents = (list: unknown): boolean => Array.isArray(list) && list.some((e) => isEvent(e) || (Array.isArray(e) && isEvent(e[0])));
/** Where a document keeps its events: `history` (evaluation output), `trajectory` (the server's trajectory API). */
const EVENT_LISTS = ['history', 'trajectory'] as const;

/** The call the model made, from `tool_call_metadata`: its function name and parsed arguments. */
function modelCall(event: Event): { tool: string; args: unknown } | undefined {
  const meta = event.tool_call_metadata;
  if (!isObject(meta) || typeof meta.function_name !== 'string') return undefined;
  const response = isObject(meta.model_response) ? meta.model_response : {};
  const choices = Array.isArray(response.choices) ? response.choices : [];
  for (const choice of choices) {
    const calls = isObject(choice) && isObject(choice.message) && Array.isArray(choice.message.tool_calls) ? choice.message.tool_calls : [];
    const call = calls.find((c) => isObject(c) && c.id === meta.tool_call_id);
    if (isObject(call) && isObject(call.function)) return { tool: meta.function_name, args: parseArguments(call.function.arguments) };
  }
  return { tool: meta.function_name, args: argsOf(event) };
}

/** Fields of an event that describe the event itself, when an older history puts the arguments beside them. */
const EVENT_FIELDS = new Set(['id', 'timestamp', 'source', 'message', 'cause', 'tool_call_metadata', 'llm_metrics', 'args']);

/** The arguments an action event records: `args` (event streams) or the event's own fields (older histories). */
function argsOf(event: Event): Record<string, unknown> {
  const source = isObject(event.args) ? event.args : event;
  return Object.fromEntries(Object.entries(source).filter(([k]) => !NOT_ARGUMENTS.has(k) && !EVENT_FIELDS.has(k)));
}

function exitCodeOf(observation: Event): number | undefined {
  const extras = isObject(observation.extras) ? observation.extras : observation;
  const meta = isObject(extras.metadata) ? extras.metadata : extras;
  const code = meta.exit_code ?? extras.exit_code;
  const n = typeof code === 'string' && /^-?\d+$/.test(code) ? Number(code) : code;
  return typeof n === 'number' && Number.isInteger(n) ? n : undefined;
}

/**
 * Pairs each tool-call action with its observation: by `cause` (event
 * streams), else the next observation (older histories without ids). An
 * error observation that answers no action is a call the runtime rejected
 * before running it (bad arguments): it is a failed step of its own.
 */
function eventsToSteps(events: Event[]): TrajectoryStep[] {
  const origin = events.find((e) => e.timestamp !== undefined)?.timestamp;
  const steps: TrajectoryStep[] = [];
  const used = new Set<Event>();
  events.forEach((event, i) => {
    if (typeof event.action === 'string') {
      if (NOT_TOOL_CALLS.has(event.action) || event.source === 'user' || event.source === 'environment') return;
      const call = modelCall(event) ?? { tool: event.action, args: argsOf(event) };
      const observation =
        event.id !== undefined
          ? events.find((e) => typeof e.observation === 'string' && e.cause !== undefined && String(e.cause) === String(event.id))
          : events.slice(i + 1).find((e) => typeof e.observation === 'string' && !used.has(e));
      const t = msBetween(origin, event.timestamp);
      if (observation === undefined) {
        steps.push(step(call.tool, call.args, { t }));
        return;
      }
      used.add(observation);
      const command = isObject(call.args) && typeof call.args.command === 'string' ? call.args.command : undefined;
      const outcome = observed({
        tool: call.tool,
        command: call.tool.includes('bash') || event.action === 'run' ? command : undefined,
        output: textOf(observation.content),
        exitCode: exitCodeOf(observation),
        failed: observation.observation === 'error',
      });
      steps.push(step(call.tool, call.args, { ...outcome, t, durationMs: msBetween(event.timestamp, observation.timestamp) }));
    } else if (event.observation === 'error' && event.cause === undefined && !used.has(event)) {
      steps.push(step('rejected_tool_call', {}, { status: 'error', error: textOf(event.content ?? event.message), t: msBetween(origin, event.timestamp) }));
    }
  });
  return steps;
}

/** Histories of old evaluation outputs are `[action, observation]` pairs; newer ones are flat event lists. */
function flatten(where: string | undefined, path: string, history: unknown[]): Event[] {
  return history.flatMap((item, i) => {
    const items = Array.isArray(item) ? item : [item];
    return items.map((e, k) => {
      if (!isObject(e)) throw new FormatError(where, Array.isArray(item) ? at(at(path, i), k) : at(path, i), 'must be an event object with "action" or "observation"');
      return e;
    });
  });
}

/**
 * OpenHands: an event stream or downloaded trajectory (a list of events with
 * `action` / `observation`, `cause` and `tool_call_metadata`), or evaluation
 * output (`output.jsonl`: one `{instance_id, history:[events]}` a line), or
 * the server's trajectory API answer (`{"trajectory":[events]}`). Tool
 * name and arguments come from `tool_call_metadata` when recorded, else from
 * the action's type and `args`; `t` is counted from the first event.
 */
export const openHandsReader: FormatReader = {
  name: 'openhands',
  looksLike: 'OpenHands events (a list of {"action"|"observation",...} events, {"trajectory":[events]}, or {"instance_id","history":[events]} lines)',
  detect: (first) => (Array.isArray(first) && isEvent(first[0])) || (isObject(first) && EVENT_LISTS.some((k) => holdsEvents(first[k]))),
  read(input) {
    const runs: Run[] = [];
    input.values.forEach((v, n) => {
      const where = lineOf(v);
      const doc = v.value;
      const path = Array.isArray(doc) ? '' : (EVENT_LISTS.find((k) => isObject(doc) && k in doc) ?? 'history');
      const history = need(where, path, Array.isArray(doc) ? doc : isObject(doc) ? doc[path] : undefined, isArray, 'must be an array of events');
      const instance = isObject(doc) && (typeof doc.instance_id === 'string' || typeof doc.instance_id === 'number') ? String(doc.instance_id) : undefined;
      const id = instance ?? (input.values.length > 1 ? `${input.name}-${n + 1}` : input.name);
      runs.push(unlabelled(id, 'OpenHands run', eventsToSteps(flatten(where, path, history))));
    });
    return runs;
  },
};
