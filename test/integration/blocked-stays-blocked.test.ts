import { afterEach, describe, expect, it } from 'vitest';
import { LoopBreakError } from '../../instrumentation/index.js';
import { createHarness, type Harness } from '../support/harness.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

describe('a blocked pattern stays blocked', () => {
  it('an empty streak of guessed ids is blocked on every call from the first block on, and the run is stopped', async () => {
    h = createHarness();
    let executed = 0;
    const lookup = h.guard.wrapTool('lookup_order', async (_args: { id: string }) => {
      executed++;
      return [];
    });
    const outcomes: string[] = [];
    let stopped: unknown;
    await h.guard.run('support-agent', async () => {
      for (let n = 1; n <= 14; n++) {
        const before = executed;
        try {
          await lookup({ id: `ord-${n}` });
          outcomes.push(executed > before ? 'ran' : 'blocked');
        } catch (err) {
          if (!(err instanceof LoopBreakError)) throw err;
          stopped = err;
          outcomes.push('break');
          break;
        }
      }
    });
    const firstBlock = outcomes.findIndex((o) => o !== 'ran');
    expect(firstBlock).toBeGreaterThan(0);
    // Nothing runs again once the pattern is blocked, and insisting reaches the break.
    expect(outcomes.slice(firstBlock).every((o) => o !== 'ran')).toBe(true);
    expect(outcomes.at(-1)).toBe('break');
    expect(stopped).toBeInstanceOf(LoopBreakError);
    expect(h.guard.verdict(h.toolSpans()[0]!.spanContext().traceId)?.stopped).toBe(true);
  });
});
