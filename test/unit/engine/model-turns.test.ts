import { describe, expect, it } from 'vitest';
import { diminishingReturns, ModelHistory, outputBudget, truncation, type ModelDetectorContext, type ModelEvidence } from '../../../src/detectors/model-turns.js';

const ctx: ModelDetectorContext = { maxOutputTokens: 10_000, outputTokenNoticeShare: 0.9, minContinuations: 3, maxTruncations: 3 };

function history(turns: Array<[number, string | undefined]>, min = 500): ModelHistory {
  const h = new ModelHistory();
  for (const [outputTokens, finishReason] of turns) h.push({ outputTokens, finishReason }, min);
  return h;
}

function evidence(h: ModelHistory, c: ModelDetectorContext = ctx): ModelEvidence[] {
  const out: ModelEvidence[] = [];
  for (const d of [outputBudget, truncation, diminishingReturns]) d(h, c, out);
  return out;
}

describe('model-turn detectors', () => {
  it('report the budget share from the notice share on, and nothing without a budget', () => {
    expect(evidence(history([[8_999, 'stop']]))).toEqual([]);
    expect(evidence(history([[9_000, 'tool_calls']]))).toEqual([{ detector: 'output-budget', score: 0.9, outputTokens: 9_000, budget: 10_000 }]);
    expect(evidence(history([[50_000, 'tool_calls']]), { ...ctx, maxOutputTokens: 0 })).toEqual([]);
  });

  it('count truncations in a row; any response not cut off ends the streak', () => {
    expect(history([[1, 'length'], [1, 'max_tokens'], [1, 'length']]).truncations).toBe(3);
    expect(history([[1, 'length'], [1, 'tool_calls'], [1, 'length']]).truncations).toBe(1);
    expect(evidence(history([[1, 'length'], [1, 'length']]), { ...ctx, maxTruncations: 0 })).toEqual([]);
  });

  it('judge continuations only from the minimum on, only under a budget, and start over at a tool call', () => {
    const petering = history([[2_000, 'stop'], [1_500, 'stop'], [1_000, 'stop'], [900, 'stop'], [300, 'stop'], [200, 'stop']]);
    expect([petering.continuations, petering.lowContinuations]).toEqual([5, 2]);
    expect(evidence(petering).map((e) => [e.detector, e.score])).toEqual([['diminishing-returns', 2]]);
    expect(evidence(petering, { ...ctx, maxOutputTokens: 0 })).toEqual([]);
    const early = history([[2_000, 'stop'], [100, 'stop'], [100, 'stop']]);
    expect(evidence(early)).toEqual([]);
    const acting = history([[2_000, 'stop'], [100, 'stop'], [100, 'stop'], [50, 'tool_calls'], [100, 'stop']]);
    expect([acting.continuations, acting.lowContinuations]).toEqual([0, 0]);
    const h = history([[2_000, 'stop'], [100, 'stop'], [100, 'stop'], [100, 'stop']]);
    h.acted();
    expect(evidence(h)).toEqual([]);
  });

  it('count the tokens of cut-off and tool-calling responses as new output of the next continuation', () => {
    const h = history([[2_000, 'stop'], [2_000, 'stop'], [2_000, 'stop'], [2_000, 'stop'], [400, 'length'], [200, 'stop']]);
    expect(h.lowContinuations).toBe(0);
  });
});
