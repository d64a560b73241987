import { describe, expect, it } from 'vitest';
import { buildNudge, previewArgs } from '../../src/nudge.js';
import type { LoopEvidence } from '../../src/breaker.js';

const evidence: LoopEvidence = { detector: 'failure-repeat', count: 4, period: 1, since: 7, fingerprint: 'fetch:abc' };
const input = { evidence, tool: 'fetch', argsPreview: '{"id":1}', step: 11 };

describe('buildNudge', () => {
  it('warns that the next repeat will be blocked', () => {
    const text = buildNudge({ ...input, level: 'warning', blocked: false });
    expect(text.split('\n')[0]).toBe(
      '[loopguard warning] fetch({"id":1}) has failed the same way 4 times; sent again unchanged it will fail again. ' +
        'Read the error: change the arguments to fix what it names, or take another approach. ' +
        'If the pattern continues, the next repeat will be blocked.',
    );
  });

  // A blocked call may be refused more than once before the break tier is reached, so the message must not
  // promise that the very next insistence stops the run.
  it('says a blocked call was not executed without promising an immediate stop', () => {
    const text = buildNudge({ ...input, level: 'critical', blocked: true });
    expect(text).toContain('This call was NOT executed. If the pattern continues, the run will be stopped.');
  });

  it('says the run has been stopped at break', () => {
    expect(buildNudge({ ...input, level: 'break', blocked: true }).split('\n')[0]).toMatch(/The run has been stopped\.$/);
  });

  it('ends with a state panel a model can parse', () => {
    const panel = buildNudge({ ...input, evidence: { ...evidence, detector: 'cycle', period: 3 }, level: 'warning', blocked: false })
      .split('\n')
      .slice(1);
    expect(panel).toEqual(['--- loop state ---', 'step: 11', 'pattern: cycle (period 3)', 'repeats: 4 since step 7', 'level: warning']);
  });

  it('describes a detector it has no wording for as no progress', () => {
    const text = buildNudge({ ...input, evidence: { ...evidence, detector: 'custom' }, level: 'warning', blocked: false });
    expect(text).toContain('You called fetch({"id":1}) 4 times in a row and got the same result every time.');
  });
});

describe('previewArgs', () => {
  it('redacts values under matching keys at any depth', () => {
    expect(previewArgs({ user: 'a', auth: { apiKey: 'secret' } }, /key/i)).toBe('{"user":"a","auth":{"apiKey":"[REDACTED]"}}');
  });

  it('cuts a long preview to the limit with an ellipsis', () => {
    const text = previewArgs({ q: 'x'.repeat(500) }, undefined, 40);
    expect(text).toHaveLength(40);
    expect(text.endsWith('…')).toBe(true);
  });

  it('degrades to an ellipsis for values JSON cannot encode', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(previewArgs(cyclic)).toBe('…');
    expect(previewArgs({ n: 1n })).toBe('…');
  });
});
