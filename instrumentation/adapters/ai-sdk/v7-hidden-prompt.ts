import type { ToolCallGuard } from '../shared/guard-like.js';
import { prepareStepWithModelTurns } from './model-turns.js';

/**
 * ai@7 calls made with `telemetry: { recordInputs: false }`: integrations get
 * a filtered copy of each step's prompt (see deliverToPrompt), so the run's
 * waiting message goes through the loop's `prepareStep` instead, as with
 * ai@6. Other calls are left untouched: their message goes to the prompt of
 * the step's model call only, while ai@7 keeps a `prepareStep` message in
 * the history of the generation's later steps.
 */

type CurrentGuard = () => ToolCallGuard | undefined;
interface CallOptions {
  telemetry?: { recordInputs?: unknown };
  experimental_telemetry?: { recordInputs?: unknown };
  prepareStep?: unknown;
  [key: string]: unknown;
}

function hidesPrompt(options: CallOptions | undefined): boolean {
  return (options?.telemetry ?? options?.experimental_telemetry)?.recordInputs === false;
}

function withPromptChannel<O extends CallOptions | undefined>(options: O, guard: CurrentGuard): O {
  return hidesPrompt(options) ? { ...options, prepareStep: prepareStepWithModelTurns(options?.prepareStep, guard) } : options;
}

/** `generateText` or `streamText` (module hook): the options pass through, with a `prepareStep` when the prompt is hidden. */
export function wrapV7Generation<R>(original: (options: CallOptions) => R, guard: CurrentGuard) {
  return function loopguardGeneration(this: unknown, options: CallOptions) {
    return original.call(this, withPromptChannel(options, guard));
  };
}

/** `ToolLoopAgent.prototype.prepareCall`: the call's telemetry settings are known once the agent's and the call's are merged. */
export function wrapV7PrepareCall(original: (this: unknown, options: unknown) => Promise<CallOptions>, guard: CurrentGuard) {
  return async function loopguardPrepareCall(this: unknown, options: unknown) {
    return withPromptChannel(await original.call(this, options), guard);
  };
}
