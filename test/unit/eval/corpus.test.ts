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

describe('parseTrajectory: model turns, budget and expected exit reason', () => {
  it('reads model steps beside tool steps, in order, with their fields', () => {
    const t = parseTrajectory(
      JSON.stringify({
        id: 'm',
        label: 'loop',
        budget: { outputTokens: 9000 },
        steps: [{ kind: 'model', outputTokens: 40, inputTokens: 900, finishReason: 'tool_calls' }, { tool: 'ls' }, { kind: 'model', outputTokens: 4096, finishReason: 'length', text: 'The ', final: true, t: 5 }],
        expect: { detectBy: 3, reason: 'truncation' },
      }),
      1,
    );
    expect(t.steps.map((s) => s.kind ?? 'tool')).toEqual(['model', 'tool', 'model']);
    expect(t.steps[2]).toEqual({ kind: 'model', outputTokens: 4096, inputTokens: undefined, finishReason: 'length', text: 'The ', final: true, t: 5 });
    expect([t.outputBudget, t.reason]).toEqual([9000, 'truncation']);
  });

  it('leaves budget and reason off a trajectory without them', () => {
    const t = parseTrajectory('{"id":"a","label":"normal","steps":[]}', 1);
    expect('outputBudget' in t || 'reason' in t).toBe(false);
  });

  it('names the line and field of a bad model step, budget or reason', () => {
    const bad = (steps: unknown[], extra: Record<string, unknown> = {}) => () => parseTrajectory(JSON.stringify({ id: 'x', label: 'normal', steps, ...extra }), 4);
    expect(bad([{ kind: 'model' }])).toThrow(new CorpusError(4, 'steps[0].outputTokens', 'must be a non-negative integer number of tokens'));
    expect(bad([{ kind: 'model', outputTokens: 1.5 }])).toThrow('field "steps[0].outputTokens"');
    expect(bad([{ tool: 'ls' }, { kind: 'model', outputTokens: 1, inputTokens: -1 }])).toThrow('field "steps[1].inputTokens"');
    expect(bad([{ kind: 'model', outputTokens: 1, finishReason: ['stop'] }])).toThrow('field "steps[0].finishReason" must be a string');
    expect(bad([{ kind: 'model', outputTokens: 1, final: 'yes' }])).toThrow('field "steps[0].final" must be true or false');
    expect(bad([{ kind: 'thought', tool: 'x' }])).toThrow('field "steps[0].kind" must be "tool" or "model"');
    expect(bad([], { budget: 5000 })).toThrow('field "budget" must be an object');
    expect(bad([], { budget: { outputTokens: 0 } })).toThrow('field "budget.outputTokens" must be a positive integer');
    expect(bad([], { expect: { reason: 'done' } })).toThrow(/field "expect.reason" must be one of completed, .*budget, truncation/);
  });
});
