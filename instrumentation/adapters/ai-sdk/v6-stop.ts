import { withAutoRun } from '../shared/auto-run.js';
import type { ToolCallGuard } from '../shared/guard-like.js';
import { loopBreakIn, stopOnLoopBreak } from './v6-tools.js';
import { gatedGeneration, stepLimitsOf } from './completion-gate.js';
import { prepareStepWithModelTurns } from './model-turns.js';

/**
 * ai@6 turns a tool's LoopBreakError into a `tool-error` part and goes on
 * looping. These wrappers make the break stop the agent: a stop condition
 * ends the loop after the breaking step, and the generation rejects with
 * the LoopBreakError (streams just end). ai@7 does not need them: its
 * telemetry integration can fail the next model call instead.
 */

type StopWhen = unknown;
interface CallOptions {
  stopWhen?: StopWhen;
  [key: string]: unknown;
}
type StepCountIs = (n: number) => unknown;

function withBreakStop(stopWhen: StopWhen, fallback: () => unknown): unknown[] {
  const conditions = stopWhen === undefined ? [fallback()] : Array.isArray(stopWhen) ? stopWhen : [stopWhen];
  return [...conditions, stopOnLoopBreak];
}

const stopWrappers = new WeakSet<object>();

/** A generation outside any run is a run of its own (see shared/auto-run.ts). */
type CurrentGuard = () => ToolCallGuard | undefined;

/** ToolLoopAgent's own default limit (it makes the condition itself, so loopguard cannot see it made). */
const AGENT_DEFAULT_STEPS = 20;

/** Throws the run's LoopBreakError when a step carried it. */
async function unlessBroken<R extends { steps?: unknown[] }>(generation: Promise<R>): Promise<R> {
  const result = await generation;
  const broken = loopBreakIn(result?.steps as never);
  if (broken) throw broken;
  return result;
}

export function wrapGenerateText(original: (options: CallOptions) => Promise<{ steps?: unknown[] }>, stepCountIs: StepCountIs, guard: CurrentGuard) {
  const wrapper = function loopguardGenerateText(options: CallOptions) {
    return withAutoRun(guard(), 'generateText', {}, () =>
      // generateText's own default is stepCountIs(1): a single step, not a turn limit.
      gatedGeneration(guard(), options, stepLimitsOf(options?.stopWhen), (o) =>
        unlessBroken(original({ ...o, stopWhen: withBreakStop(o?.stopWhen, () => stepCountIs(1)), prepareStep: prepareStepWithModelTurns(o?.prepareStep, guard) })),
      ),
    );
  };
  stopWrappers.add(wrapper);
  return wrapper;
}

/** True for a generateText that loopguard's module hook replaced (so a break ends it). */
export function stopsOnBreak(generateText: unknown): boolean {
  return typeof generateText === 'function' && stopWrappers.has(generateText);
}

export function wrapStreamText(original: (options: CallOptions) => unknown, stepCountIs: StepCountIs, guard: CurrentGuard) {
  return function loopguardStreamText(options: CallOptions) {
    return original({ ...options, stopWhen: withBreakStop(options?.stopWhen, () => stepCountIs(1)), prepareStep: prepareStepWithModelTurns(options?.prepareStep, guard) });
  };
}

export function wrapPrepareCall(original: (this: unknown, options: unknown) => Promise<CallOptions>, stepCountIs: StepCountIs, guard: CurrentGuard) {
  return async function loopguardPrepareCall(this: unknown, options: unknown) {
    const call = await original.call(this, options);
    // ToolLoopAgent's own default is stepCountIs(20).
    return { ...call, stopWhen: withBreakStop(call?.stopWhen, () => stepCountIs(20)), prepareStep: prepareStepWithModelTurns(call?.prepareStep, guard) };
  };
}

interface AgentLike {
  id?: unknown;
  settings?: { stopWhen?: unknown };
}

export function wrapAgentGenerate(original: (this: AgentLike, ...args: unknown[]) => Promise<{ steps?: unknown[] }>, guard: CurrentGuard) {
  return function loopguardAgentGenerate(this: AgentLike, ...args: unknown[]) {
    const name = typeof this?.id === 'string' ? this.id : 'agent';
    const stopWhen = this?.settings?.stopWhen;
    const limits = stopWhen === undefined ? [AGENT_DEFAULT_STEPS] : stepLimitsOf(stopWhen);
    const [options, ...rest] = args as [CallOptions | undefined, ...unknown[]];
    return withAutoRun(guard(), name, { agentName: name }, () =>
      gatedGeneration(guard(), options ?? {}, limits, (o) => unlessBroken(original.call(this, o, ...rest))),
    );
  };
}
