import type { ToolCallGuard } from '../shared/guard-like.js';
import { gateInvocation } from '../shared/completion-gate.js';

/**
 * ai@6's side of the completion gate and of `max_turns`: a generation that
 * ends with a text answer is a finish (the gate may add a user turn asking to
 * verify), and one that a `stepCountIs(n)` condition ended while its last
 * step still called tools ran into its turn limit.
 */

/** The step limits of the `stepCountIs` conditions loopguard saw made. */
const stepLimits = new WeakMap<object, number>();

type StepCountIs = (n: number) => unknown;

/** `stepCountIs` whose conditions remember their limit (the module export is replaced by this under the module hooks). */
export function rememberingStepCountIs(stepCountIs: StepCountIs): StepCountIs {
  return function loopguardStepCountIs(n: number) {
    const condition = stepCountIs(n);
    if (typeof condition === 'function') stepLimits.set(condition, n);
    return condition;
  };
}

interface GenerationLike {
  finishReason?: unknown;
  steps?: unknown[];
  response?: { messages?: unknown[] };
}

/** The step limits among stop conditions (`stopWhen`, one or a list): those of the `stepCountIs` conditions loopguard saw made. */
export function stepLimitsOf(stopWhen: unknown): number[] {
  const conditions = Array.isArray(stopWhen) ? stopWhen : [stopWhen];
  return conditions.map((c) => (typeof c === 'function' ? stepLimits.get(c) : undefined)).filter((n): n is number => n !== undefined);
}

/** The run hit a step limit: its last step still asked for tools, and it took as many steps as a limit allows. */
export function hitStepLimit(result: GenerationLike | undefined, limits: readonly number[]): boolean {
  if (result?.finishReason !== 'tool-calls' || !Array.isArray(result.steps)) return false;
  return limits.includes(result.steps.length);
}

interface PromptOptions {
  prompt?: unknown;
  messages?: unknown[];
  [key: string]: unknown;
}

/** The conversation a call was given, as messages. */
function conversationOf(options: PromptOptions): unknown[] {
  if (Array.isArray(options.messages)) return options.messages;
  if (Array.isArray(options.prompt)) return options.prompt;
  return typeof options.prompt === 'string' ? [{ role: 'user', content: options.prompt }] : [];
}

/** The same call continuing `result`'s conversation with a user turn. */
function continued(options: PromptOptions, result: GenerationLike, message: string): PromptOptions {
  const { prompt: _prompt, messages: _messages, ...rest } = options;
  return { ...rest, messages: [...conversationOf(options), ...(result.response?.messages ?? []), { role: 'user', content: message }] };
}

/**
 * Runs a generation (`generate(options)`, which throws the run's
 * LoopBreakError itself) under the completion gate, and records a step limit
 * reached as the run's turn limit.
 */
export function gatedGeneration<R extends GenerationLike>(
  guard: ToolCallGuard | undefined,
  options: PromptOptions,
  limits: readonly number[],
  generate: (options: PromptOptions) => Promise<R>,
): Promise<R> {
  const generateNoting = async (o: PromptOptions): Promise<R> => {
    const result = await generate(o);
    if (hitStepLimit(result, limits)) guard?.reachTurnLimit?.();
    return result;
  };
  return gateInvocation(guard, {
    run: () => generateNoting(options),
    finished: (result) => result?.finishReason === 'stop',
    again: (result, message) => generateNoting(continued(options, result, message)),
  });
}
