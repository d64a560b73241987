import type { GatedInvocation } from '../shared/completion-gate.js';

/** LangGraph's side of the completion gate: the state of a messages graph (`createReactAgent`, `createAgent`, MessagesAnnotation). */
interface MessageLike {
  tool_calls?: unknown[];
  role?: unknown;
  type?: unknown;
  _getType?: () => string;
}

function kindOf(message: MessageLike): unknown {
  return typeof message._getType === 'function' ? message._getType() : (message.type ?? message.role);
}

/** The graph finished with the model's answer: its last message is the AI's, asking for no tool. */
export function answered(state: unknown): boolean {
  const messages = (state as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages) || messages.length === 0) return false;
  const last = messages.at(-1) as MessageLike | null;
  if (!last) return false;
  const kind = kindOf(last);
  return (kind === 'ai' || kind === 'assistant') && (last.tool_calls?.length ?? 0) === 0;
}

/**
 * The graph run again with the request to verify as the user's next message.
 * The messages of the finished run go with it: the messages reducer keeps
 * them once (by id) when a checkpointer already holds them, and a graph
 * without one starts from them.
 */
export function graphInvocation(invoke: (input: unknown) => Promise<unknown>, input: unknown): GatedInvocation<unknown> {
  return {
    run: () => invoke(input),
    finished: answered,
    again: (state, message) => invoke({ messages: [...((state as { messages: unknown[] }).messages ?? []), { role: 'user', content: message }] }),
  };
}
