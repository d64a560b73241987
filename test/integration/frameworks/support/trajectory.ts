import type { LoopEvent } from '../../../../instrumentation/index.js';
import { LoopBreakError } from '../../../../src/breaker.js';
import { createHarness } from '../../../support/harness.js';

/** One scripted tool call of a trajectory: what the model asks for, and what the tool answers. */
export interface ScriptedCall {
  tool: string;
  args: Record<string, unknown>;
  result: string;
}

/** The tool-call steps (1-based) at which each level was first decided. */
export interface FirstSteps {
  warning?: number;
  critical?: number;
  break?: number;
}

export function firstSteps(events: LoopEvent[]): FirstSteps {
  const out: FirstSteps = {};
  for (const e of events) if (out[e.level] === undefined) out[e.level] = e.step;
  return out;
}

/**
 * The reference: the same trajectory through plain `wrapTool`, with the same
 * guard settings. A framework adapter must reach each level at the same step.
 */
export async function referenceSteps(calls: ScriptedCall[]): Promise<FirstSteps> {
  const events: LoopEvent[] = [];
  const h = createHarness({ onLoop: (e) => void events.push(e) });
  try {
    await h.guard.run('reference', async () => {
      for (const call of calls) {
        const fn = h.guard.wrapTool(call.tool, async (_args: Record<string, unknown>) => call.result);
        try {
          await fn(call.args);
        } catch (err) {
          if (err instanceof LoopBreakError) return;
          throw err;
        }
      }
    });
  } finally {
    await h.close();
  }
  return firstSteps(events);
}

/** A looping trajectory: the same search, the same answer, over and over. */
export function repeatedSearch(times: number): ScriptedCall[] {
  return Array.from({ length: times }, () => ({ tool: 'search', args: { query: 'weather in Paris' }, result: 'Sunny, 21°C' }));
}

/** A healthy trajectory: a different question each time, a different answer each time. */
export function exploringSearch(times: number): ScriptedCall[] {
  return Array.from({ length: times }, (_, i) => ({ tool: 'search', args: { query: `weather in city ${i + 1}` }, result: `city ${i + 1}: ${10 + i}°C` }));
}
