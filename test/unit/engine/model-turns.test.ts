import { describe, expect, it } from 'vitest';
import { outputSketch } from '../../../src/model-span.js';
import { MODEL_DETECTORS, ModelHistory, type ModelDetectorContext, type ModelEvidence } from '../../../src/detectors/model-turns.js';

const ctx: ModelDetectorContext = { maxOutputTokens: 10_000, outputTokenNoticeShare: 0.9, minContinuations: 3, maxTruncations: 3, repeatedAnswerFloor: 3, chanting: true };

function history(turns: Array<[number, string | undefined]>, min = 500): ModelHistory {
  const h = new ModelHistory();
  for (const [outputTokens, finishReason] of turns) h.push({ outputTokens, finishReason }, min);
  return h;
}

function evidence(h: ModelHistory, c: ModelDetectorContext = ctx): ModelEvidence[] {
  const out: ModelEvidence[] = [];
  for (const d of MODEL_DETECTORS) d(h, c, out);
  return out;
}

describe('model-turn detectors', () => {
  it('report the budget share from the notice share on, and nothing without a budget', () => {
    expect(evidence(history([[8_999, 'stop']]))).toEqual([]);
    expect(evidence(history([[9_000, 'tool_calls']]))).toEqual([{ detector: 'budget', score: 0.9, outputTokens: 9_000, budget: 10_000 }]);
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

describe('repeated answers', () => {
  const long = (s: string) => outputSketch(`${s} ${'The deployment failed because the migration could not acquire the lock on the orders table. '.repeat(2)}`);

  it('count how many kept answers the latest restates, long answers only', () => {
    const h = new ModelHistory();
    for (const s of [long('First'), long('First'), outputSketch('Done.')]) h.push({ outputTokens: 50, finishReason: 'stop', sketch: s }, 500);
    expect(h.repeats).toBe(0);
    h.push({ outputTokens: 50, finishReason: 'stop', sketch: long('First') }, 500);
    expect(h.repeats).toBe(3);
    const unbudgeted = { ...ctx, maxOutputTokens: 0 };
    expect(evidence(h, unbudgeted).map((e) => [e.detector, e.score])).toEqual([['repeated-answer', 3]]);
    expect(evidence(h, { ...unbudgeted, repeatedAnswerFloor: 0 })).toEqual([]);
    h.push({ outputTokens: 50, finishReason: 'tool_calls', sketch: long('First') }, 500);
    expect(h.repeats).toBe(0);
  });
});

describe('chanting', () => {
  it('judges every response, cut off ones too: counts the run\'s chanting responses and reports the latest one\'s repeats', () => {
    const h = new ModelHistory();
    h.push({ outputTokens: 8_192, finishReason: 'length', chant: 40 }, 500);
    expect(evidence(h).filter((e) => e.detector === 'chanting')).toEqual([{ detector: 'chanting', score: 1, repeats: 40, outputTokens: 8_192, budget: 10_000 }]);
    h.push({ outputTokens: 100, finishReason: 'tool_calls' }, 500);
    expect(evidence(h).some((e) => e.detector === 'chanting')).toBe(false);
    h.push({ outputTokens: 900, finishReason: 'stop', chant: 12 }, 500);
    expect(evidence(h).find((e) => e.detector === 'chanting')).toMatchObject({ score: 2, repeats: 12 });
    expect(evidence(h, { ...ctx, chanting: false }).some((e) => e.detector === 'chanting')).toBe(false);
  });
});
