import { describe, expect, it } from 'vitest';
import { decideAction, defaultAction, type CallAction, type LoopAction } from '../../instrumentation/loop-action.js';
import type { Level } from '../../src/types.js';

const ANSWERS: Array<LoopAction | undefined> = [undefined, 'continue', 'block', 'break'];
const show = (a: CallAction) => (a.byOnLoop ? `${a.act} (onLoop)` : a.act);

describe('decideAction before a call (a pattern armed for blocking)', () => {
  // level × onLoop answer → [recorded below break, recorded at break]
  const table: Array<[Level, LoopAction | undefined, string, string]> = [
    ['critical', undefined, 'block', 'break'],
    ['critical', 'continue', 'run', 'run'],
    ['critical', 'block', 'block', 'break'],
    ['critical', 'break', 'break (onLoop)', 'break'],
    ['break', undefined, 'break', 'break'],
    ['break', 'continue', 'run', 'run'],
    ['break', 'block', 'break', 'break'],
    ['break', 'break', 'break', 'break'],
  ];
  it('covers every combination', () => {
    expect(table).toHaveLength(2 * ANSWERS.length);
    for (const [level, answer, below, atBreak] of table) {
      for (const recorded of [undefined, 'warning', 'critical'] as const) {
        expect(show(decideAction(false, level, answer, recorded, false)), `${level} ${answer} ${recorded}`).toBe(below);
      }
      expect(show(decideAction(false, level, answer, 'break', false)), `${level} ${answer} break`).toBe(atBreak);
    }
  });

  it('proposes a block, or a break at the break tier', () => {
    expect(defaultAction(false, 'critical')).toBe('block');
    expect(defaultAction(false, 'break')).toBe('break');
  });
});

describe('decideAction after a call', () => {
  // level × onLoop answer → [the call returned, the call failed]
  const table: Array<[Level, LoopAction | undefined, string, string]> = [
    ['warning', undefined, 'nudge', 'nudge'],
    ['warning', 'continue', 'nudge', 'nudge'],
    ['warning', 'block', 'block', 'nudge'],
    ['warning', 'break', 'break (onLoop)', 'break (onLoop)'],
    ['critical', undefined, 'nudge', 'nudge'],
    ['critical', 'continue', 'nudge', 'nudge'],
    ['critical', 'block', 'block', 'nudge'],
    ['critical', 'break', 'break (onLoop)', 'break (onLoop)'],
    ['break', undefined, 'break', 'break'],
    ['break', 'continue', 'resume', 'resume'],
    ['break', 'block', 'break', 'break'],
    ['break', 'break', 'break', 'break'],
  ];
  it('covers every combination', () => {
    expect(table).toHaveLength(3 * ANSWERS.length);
    for (const [level, answer, returned, failed] of table) {
      expect(show(decideAction(true, level, answer, undefined, true)), `${level} ${answer} returned`).toBe(returned);
      expect(show(decideAction(true, level, answer, undefined, false)), `${level} ${answer} failed`).toBe(failed);
    }
  });

  it('proposes a nudge, or a break at the break tier', () => {
    expect(defaultAction(true, 'warning')).toBe('nudge');
    expect(defaultAction(true, 'critical')).toBe('nudge');
    expect(defaultAction(true, 'break')).toBe('break');
  });
});
