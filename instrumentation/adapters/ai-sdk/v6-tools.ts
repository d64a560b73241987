import { LoopBreakError } from '../../../src/breaker.js';
import { ATTR_LOOPGUARD_FRAMEWORK } from '../shared/guard-like.js';
import type { ToolCallGuard } from '../shared/guard-like.js';

/** Marks an AI SDK tool object whose `execute` already goes through loopguard, and keeps the original. */
const ORIGINAL_EXECUTE = Symbol.for('loopguard.ai-sdk.originalExecute');

type Execute = (input: unknown, options?: { toolCallId?: unknown }) => unknown;

/**
 * ai@6 hands its telemetry integrations' `onStart` the very tool objects it
 * will execute (`tool.execute.bind(tool)` at call time), so replacing
 * `execute` in place puts every call of this and later runs through the
 * guard: the nudge reaches the model in the result, and a blocked call
 * returns the synthetic "not executed" result as the tool output. The name
 * is the key the tool was registered under the first time it was seen.
 */
export function guardToolSet(tools: unknown, guard: () => ToolCallGuard | undefined): void {
  if (typeof tools !== 'object' || tools === null) return;
  for (const [name, tool] of Object.entries(tools as Record<string, unknown>)) guardTool(name, tool, guard);
}

function guardTool(name: string, tool: unknown, guard: () => ToolCallGuard | undefined): void {
  if (typeof tool !== 'object' || tool === null) return;
  const record = tool as Record<PropertyKey, unknown>;
  if (typeof record.execute !== 'function' || record[ORIGINAL_EXECUTE]) return;
  const original = record.execute as Execute;
  Object.defineProperty(record, ORIGINAL_EXECUTE, { value: original });
  record.execute = async function loopguardExecute(this: unknown, input: unknown, options?: { toolCallId?: unknown }) {
    const current = guard();
    if (!current) return original.call(this, input, options);
    const callId = typeof options?.toolCallId === 'string' ? options.toolCallId : undefined;
    const result = await current.callTool(name, input, () => original.call(this, input, options), {
      callId,
      attributes: { [ATTR_LOOPGUARD_FRAMEWORK]: 'ai-sdk' },
    });
    return result;
  };
}

interface StepLike {
  content?: Array<{ type?: string; error?: unknown }>;
}

/** The LoopBreakError a step's tool call failed with, if any: how ai@6 reports the break to the agent. */
export function loopBreakIn(steps: StepLike[] | undefined): LoopBreakError | undefined {
  const last = steps?.at(-1);
  for (const part of last?.content ?? []) if (part.type === 'tool-error' && part.error instanceof LoopBreakError) return part.error;
  return undefined;
}

/** A stop condition that ends the tool loop after the step in which loopguard broke the run. */
export function stopOnLoopBreak({ steps }: { steps: StepLike[] }): boolean {
  return loopBreakIn(steps) !== undefined;
}
