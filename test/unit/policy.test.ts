import { describe, expect, it } from 'vitest';
import type { Evidence } from '../../src/detectors/evidence.js';
import { Policy } from '../../src/policy.js';
import { resolveDetectionOptions } from '../../src/options.js';

const evidence = (detector: Evidence['detector'], score: number, period: number): Evidence => ({
  detector,
  tiers: detector as Evidence['tiers'],
  score,
  count: score,
  period,
  since: 1,
  toolId: 0,
  argsHash: 'a',
  next: undefined,
});

describe('Policy.judge', () => {
  const policy = new Policy(resolveDetectionOptions());
  const name = () => 'tool';

  it('reports the longest period among the patterns at the verdict rank', () => {
    // repeat 6 and ping-pong 3 are both critical under the balanced tiers; repeat ranks first on score.
    const j = policy.judge([evidence('repeat', 6, 1), evidence('ping-pong', 3, 2)], name);
    expect(j.rank).toBe(2);
    expect(j.ranked[0]!.detector).toBe('repeat');
    expect(j.period).toBe(2);
  });

  it('does not take the period of a pattern below the verdict rank', () => {
    // ping-pong 2 only warns; the verdict is repeat's critical.
    const j = policy.judge([evidence('repeat', 6, 1), evidence('ping-pong', 2, 2)], name);
    expect(j.rank).toBe(2);
    expect(j.period).toBe(1);
  });

  it('reports period 0 when nothing reaches a tier', () => {
    expect(policy.judge([evidence('repeat', 1, 1)], name)).toMatchObject({ rank: 0, period: 0 });
  });
});
