import type { GatedInvocation } from '../shared/completion-gate.js';

/** OpenAI Agents' side of the completion gate: a `RunResult` and how to continue its conversation. */
interface RunResultLike {
  history?: unknown[];
  lastResponseId?: unknown;
  interruptions?: unknown[];
  state?: { _currentStep?: { type?: unknown } };
}

interface RunOptionsLike {
  conversationId?: unknown;
  previousResponseId?: unknown;
}

/** The run ended with the agent's final output (not an interruption waiting for approval). */
function answered(result: unknown): boolean {
  const r = result as RunResultLike | null;
  if (!r || (r.interruptions?.length ?? 0) > 0) return false;
  return r.state?._currentStep?.type === 'next_step_final_output';
}

/**
 * The run again with the request to verify as the user's next message: after
 * the run's whole history, or alone where the server keeps the conversation
 * (`conversationId`, `previousResponseId`).
 */
export function runnerInvocation<O extends RunOptionsLike>(
  invoke: (input: unknown, options: O | undefined) => Promise<unknown>,
  input: unknown,
  options: O | undefined,
): GatedInvocation<unknown> {
  return {
    run: () => invoke(input, options),
    finished: answered,
    again: (result, message) => {
      const r = result as RunResultLike;
      const turn = { role: 'user', content: message };
      if (options?.conversationId !== undefined) return invoke([turn], options);
      if (options?.previousResponseId !== undefined) return invoke([turn], { ...options, previousResponseId: r.lastResponseId });
      return invoke([...(r.history ?? []), turn], options);
    },
  };
}
