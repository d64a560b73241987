import { describe, expect, it } from 'vitest';
import { CorpusError, parseCorpus, parseTrajectory } from '../../../src/eval/corpus.js';

describe('parseTrajectory', () => {
  it('reads a run without tool calls as a trajectory with no steps', () => {
    const t = parseTrajectory('{"id":"quiet","label":"normal","title":"answered from memory","steps":[]}', 3);
    expect(t.steps).toEqual([]);
    expect(t.label).toBe('normal');
  });

  it('names the line and field when steps are missing or not an array', () => {
    expect(() => parseTrajectory('{"id":"x","label":"normal"}', 7)).toThrow(new CorpusError(7, 'steps', 'must be an array of steps'));
    expect(() => parseTrajectory('{"id":"x","label":"normal","steps":{}}', 2)).toThrow('line 2: field "steps" must be an array of steps');
  });

  it('ignores unknown fields and defaults args and status', () => {
    const [t] = parseCorpus('{"id":"a","label":"loop","steps":[{"tool":"ls","extra":1}],"expect":{"onset":1,"detectBy":1},"owner":"qa"}\n');
    expect(t!.steps[0]).toMatchObject({ tool: 'ls', args: {}, status: 'ok', hasResult: false });
  });
});
