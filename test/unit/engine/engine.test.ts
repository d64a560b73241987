import { describe, expect, it } from 'vitest';
import type { DetectorName } from '../../../src/config.js';
import type { ModelTurn } from '../../../src/detectors/model-turns.js';
import { LoopEngine } from '../../../src/engine.js';
import { hashText } from '../../../src/fingerprint/index.js';
import { outputSketch } from '../../../src/model-span.js';
import { resolveDetectionOptions } from '../../../src/options.js';
import { feed, times } from './feed.js';

const entry = (tool: string, args: string, result: string) => {
  const argsHash = hashText(args);
  return { tool, argsHash, normArgsHash: argsHash, resultHash: hashText(result), outcome: 'ok' as const, blocked: false, startMs: 0, endMs: 0 };
};

describe('breaker arming', () => {
  it('arms the exact continuation of a loop once its next call would be critical', () => {
    const engine = new LoopEngine(resolveDetectionOptions());
    for (let i = 0; i < 4; i++) engine.record('r', entry('search', 'q', 'none'));
    const same = engine.precheck('r', 'search', hashText('q'), hashText('q'));
    expect(same).toMatchObject({ action: 'block', level: 'critical' });
    expect(same!.evidence).toMatchObject({ detector: 'no-progress', count: 5 });
    // A different call breaks the pattern: it runs.
    expect(engine.precheck('r', 'search', hashText('other'), hashText('other'))).toBeUndefined();
    expect(engine.precheck('r', 'open', hashText('q'), hashText('q'))).toBeUndefined();
  });

  it('arms the next call of a cycle, not the one just made', () => {
    const engine = new LoopEngine(resolveDetectionOptions());
    const cycle = [entry('read', 's', ''), entry('write', 'X', '1'), entry('write', 'Y', '0')];
    for (let i = 0; i < 8; i++) engine.record('r', cycle[i % 3]!);
    // Next in the cycle is write Y (index 8 % 3 = 2).
    expect(engine.precheck('r', 'write', hashText('Y'), hashText('Y'))?.action).toBe('block');
    expect(engine.precheck('r', 'read', hashText('s'), hashText('s'))).toBeUndefined();
  });

  it('escalates to break when a blocked call is insisted on, and stays stopped', () => {
    const engine = new LoopEngine(resolveDetectionOptions());
    for (let i = 0; i < 4; i++) engine.record('r', entry('search', 'q', 'none'));
    for (let i = 0; i < 3; i++) {
      const pre = engine.precheck('r', 'search', hashText('q'), hashText('q'))!;
      expect(pre.action).toBe('block');
      engine.record('r', { ...entry('search', 'q', 'none'), resultHash: pre.armed!.next.resultHash, blocked: true });
    }
    expect(engine.precheck('r', 'search', hashText('q'), hashText('q'))?.action).toBe('break');
    const d = engine.record('r', { ...entry('search', 'q', 'none'), blocked: true });
    expect(d.level).toBe('break');
    expect(engine.isStopped('r')?.reason).toBe('no-progress');
    expect(engine.precheck('r', 'anything', hashText('z'), hashText('z'))).toMatchObject({ action: 'break', stop: { reason: 'no-progress' } });
    expect(engine.verdict('r')).toMatchObject({ toolCalls: 8, level: 'break', stopped: true, stopReason: 'no-progress' });
  });

  it('resumes a run an override let go on', () => {
    const engine = new LoopEngine(resolveDetectionOptions());
    engine.stop('r', 'onLoop');
    expect(engine.isStopped('r')).toBeDefined();
    engine.resume('r');
    expect(engine.precheck('r', 't', hashText('a'), hashText('a'))).toBeUndefined();
  });
});

describe('coming back to a flagged call', () => {
  const q = { tool: 'search', args: 'q', result: 'none' };
  const elsewhere = (page: string) => ({ tool: 'open', args: page, result: `page ${page}`, informative: true });

  it('stops a run whose call, warned about and left, comes back until it is critical', () => {
    // Warned at the third search; two new pages end that episode; back on the search, repeat reaches critical at its sixth.
    const r = feed([...times(3, q), elsewhere('a'), elsewhere('b'), ...times(4, q)]);
    expect(r.levels).toEqual([undefined, undefined, 'warning', undefined, undefined, undefined, 'warning', 'warning', 'break']);
    expect(r.engine.isStopped('run')?.reason).toBe('repeat');
  });

  it('stops a run that makes a blocked call again after another call', () => {
    const r = feed([...times(5, q), elsewhere('a'), ...times(2, q)]);
    expect(r.levels).toEqual([undefined, undefined, 'warning', 'warning', 'critical', undefined, 'warning', 'break']);
  });

  it('lets blocks insisted on back to back climb the tiers', () => {
    // The same critical call again and again is one episode: it reaches break at the tier, not at its second block.
    const r = feed(times(8, q));
    expect(r.levels).toEqual([undefined, undefined, 'warning', 'warning', 'critical', 'critical', 'critical', 'break']);
  });

  it('leaves a call warned about again in a later episode at warning', () => {
    const r = feed([...times(3, q), elsewhere('a'), elsewhere('b'), ...times(2, q)]);
    expect(r.levels.slice(-2)).toEqual([undefined, 'warning']);
    expect(r.engine.isStopped('run')).toBeUndefined();
  });

  it('stops a cycle carried on past its critical at the next call of the cycle', () => {
    // A-B-A-B: critical at three periods (step 6); its next call is critical too, so the run ignored it.
    const r = feed(times(8, (i) => (i % 2 ? { tool: 'read', args: 'r', result: 'same rows' } : { tool: 'write', args: 'w', result: 'ok' })));
    expect(r.levels.slice(0, 7)).toEqual([undefined, undefined, undefined, 'warning', 'warning', 'critical', 'break']);
    expect(r.engine.isStopped('run')?.reason).toBe('ping-pong');
  });

  it('refuses the next call of a cycle whose call was refused, in process, with a break', () => {
    const engine = new LoopEngine(resolveDetectionOptions());
    const cycle = [entry('write', 'w', 'ok'), entry('read', 'r', 'same rows')];
    for (let i = 0; i < 5; i++) engine.record('r', cycle[i % 2]!);
    const refused = engine.precheck('r', 'read', hashText('r'), hashText('r'))!;
    expect(refused.action).toBe('block');
    expect(engine.record('r', { ...cycle[1]!, resultHash: refused.armed!.next.resultHash, blocked: true }).level).toBe('critical');
    // The agent goes on to the cycle's next step anyway.
    const next = engine.precheck('r', 'write', hashText('w'), hashText('w'))!;
    expect(next.action).toBe('block');
    expect(engine.record('r', { ...cycle[0]!, resultHash: next.armed!.next.resultHash, blocked: true }).level).toBe('break');
    expect(engine.precheck('r', 'anything', hashText('z'), hashText('z'))).toMatchObject({ action: 'break', stop: { reason: 'ping-pong' } });
  });

  it('never stops a run through a family whose break tier is off', () => {
    const tools = { search: { thresholds: { 'no-progress': { warning: 3, critical: 5, break: 0 }, repeat: { warning: 4, critical: 6, break: 0 } } } };
    const r = feed([...times(3, q), elsewhere('a'), elsewhere('b'), ...times(6, q)], { tools });
    expect(r.levels.slice(-3)).toEqual(['critical', 'critical', 'critical']);
    expect(r.engine.isStopped('run')).toBeUndefined();
  });

  it('refuses the call that came back, in process, with a break', () => {
    const engine = new LoopEngine(resolveDetectionOptions());
    for (let i = 0; i < 4; i++) engine.record('r', entry('search', 'q', 'none'));
    const pre = engine.precheck('r', 'search', hashText('q'), hashText('q'))!;
    expect(pre.action).toBe('block');
    expect(engine.record('r', { ...entry('search', 'q', 'none'), resultHash: pre.armed!.next.resultHash, blocked: true }).level).toBe('critical');
    engine.record('r', entry('open', 'a', 'page a'));
    // The pattern was broken, so nothing is armed: the call runs, and its record stops the run.
    expect(engine.precheck('r', 'search', hashText('q'), hashText('q'))).toBeUndefined();
    engine.record('r', entry('search', 'q', 'none'));
    expect(engine.record('r', entry('search', 'q', 'none')).level).toBe('break');
    expect(engine.precheck('r', 'anything', hashText('z'), hashText('z'))).toMatchObject({ action: 'break' });
  });
});

describe('throttling', () => {
  it('repeats a warning only after the cooldown', () => {
    const engine = new LoopEngine(resolveDetectionOptions({ thresholds: { 'no-progress': { warning: 3, critical: 0, break: 0 } }, warningCooldown: 3 }));
    const notified = times(9, () => engine.record('r', entry('s', 'q', 'none')).notify);
    expect(notified).toEqual([false, false, true, false, false, true, false, false, true]);
  });
});

describe('bounded memory', () => {
  it('evicts the least recently active run beyond the cap', () => {
    const evicted: string[] = [];
    let now = 0;
    const engine = new LoopEngine(resolveDetectionOptions({ maxRuns: 2 }), () => (now += 2000));
    engine.onEvict = (k) => evicted.push(k);
    engine.record('a', entry('t', '1', '1'));
    engine.record('b', entry('t', '1', '1'));
    engine.record('a', entry('t', '2', '2'));
    engine.record('c', entry('t', '1', '1'));
    expect(evicted).toEqual(['b']);
    expect(engine.activeRuns).toBe(2);
    expect(engine.evictions).toBe(1);
  });

  it('forgets runs idle past the TTL', () => {
    let now = 0;
    const engine = new LoopEngine(resolveDetectionOptions({ runTtlMs: 1000 }), () => now);
    engine.record('old', entry('t', '1', '1'));
    now = 500;
    engine.record('new', entry('t', '1', '1'));
    now = 1200;
    engine.sweep();
    expect(engine.verdict('old')).toBeUndefined();
    expect(engine.verdict('new')).toBeDefined();
  });

  it('starts a run idle past the TTL afresh at its next call, with no sweep in between', () => {
    let now = 0;
    const engine = new LoopEngine(resolveDetectionOptions({ runTtlMs: 60_000 }), () => now);
    const poll = () => engine.record('r', entry('status', 'job-1', 'stuck'));
    poll();
    poll();
    // The third identical answer is a warning while the run is remembered...
    expect(poll().level).toBe('warning');
    now = 59_999;
    expect(poll().level).toBe('warning');
    expect(engine.precheck('r', 'status', hashText('job-1'), hashText('job-1'))?.action).toBe('block');
    // ...and after a minute idle the run is forgotten: the pattern starts over, and nothing is armed against the call.
    now += 60_000;
    expect(engine.precheck('r', 'status', hashText('job-1'), hashText('job-1'))).toBeUndefined();
    expect(poll().level).toBeUndefined();
    expect(engine.verdict('r')?.toolCalls).toBe(1);
    expect(engine.evictions).toBe(1);
  });

  it('keeps the window, not the run: a long run costs what a short one does', () => {
    const engine = new LoopEngine(resolveDetectionOptions({ window: 8 }));
    for (let i = 0; i < 1000; i++) engine.record('r', entry('t', `${i}`, `${i}`));
    expect(engine.verdict('r')?.toolCalls).toBe(1000);
    const history = (engine as unknown as { runs: Map<string, { history: { size: number } }> }).runs.get('r')!.history;
    expect(history.size).toBe(8);
  });
});

describe('per-tool options and disabled detectors', () => {
  it('ignores a tool entirely', () => {
    const r = feed(times(8, { tool: 'poll', args: 'x', result: 'same' }), { tools: { poll: { ignore: true } } });
    expect(r.firstWarning).toBeNull();
  });

  it('applies per-tool thresholds', () => {
    const r = feed(times(8, { tool: 'poll', args: 'x', result: 'same' }), { tools: { poll: { thresholds: { 'no-progress': { warning: 6, critical: 9, break: 12 } } } } });
    expect(r.firstWarning).toBe(6);
  });

  it('switches detector families off', () => {
    const r = feed(times(8, { tool: 'poll', args: 'x', result: 'same' }), { disable: ['no-progress'] });
    expect(r.detectors.filter(Boolean).includes('no-progress')).toBe(false);
  });

  it('leaves out a detector only when every family it reports is off', () => {
    const calls = times(8, { tool: 'poll', args: 'x', result: 'same' });
    const periodicFamilies = ['no-progress', 'ping-pong', 'cycle', 'semantic-repeat', 'same-answer'] as const;
    expect(feed(calls, { disable: [...periodicFamilies] }).firstWarning).toBeNull();
    expect(feed(calls, { disable: periodicFamilies.filter((f) => f !== 'no-progress') }).detectors).toContain('no-progress');
  });

  it('uses the preset thresholds', () => {
    const calls = times(8, { tool: 'poll', args: 'x', result: 'same' });
    expect(feed(calls, { preset: 'aggressive' }).firstWarning).toBe(2);
    expect(feed(calls, { preset: 'balanced' }).firstWarning).toBe(3);
    expect(feed(calls, { preset: 'conservative' }).firstWarning).toBe(4);
  });
});

describe('disable: the model side and the completion gate', () => {
  const report = 'The deployment finished: every service answered its health check and the release notes are written up for the team.';
  const chanting = { outputTokens: 900, finishReason: 'stop', chant: 20 };
  /** Turns that each model-side detector stops a run on by default (the options it needs besides). */
  const scenarios: Record<string, { options?: Parameters<typeof resolveDetectionOptions>[0]; turns: ModelTurn[] }> = {
    truncation: { turns: Array.from({ length: 3 }, () => ({ outputTokens: 4_096, finishReason: 'length' })) },
    'diminishing-returns': {
      options: { maxOutputTokens: 100_000 },
      turns: [2_000, 1_500, 1_000, 900, 300, 200].map((outputTokens) => ({ outputTokens, finishReason: 'stop' })),
    },
    'repeated-answer': { turns: Array.from({ length: 5 }, () => ({ outputTokens: 60, finishReason: 'stop', sketch: outputSketch(report) })) },
    chanting: { turns: [chanting, chanting] },
    budget: { options: { maxOutputTokens: 1_000 }, turns: [{ outputTokens: 2_000, finishReason: 'stop' }] },
  };

  const levels = (options: Parameters<typeof resolveDetectionOptions>[0], turns: ModelTurn[]) => {
    const engine = new LoopEngine(resolveDetectionOptions(options));
    return turns.map((turn) => engine.recordModel('r', turn)).map((d) => d.level ?? (d.evidence ? 'notice' : undefined));
  };

  for (const [name, { options = {}, turns }] of Object.entries(scenarios)) {
    it(`${name}: stops the run by default, judges nothing when disabled, and leaves the other detectors on`, () => {
      expect(levels(options, turns).at(-1)).toBe('break');
      expect(levels({ ...options, disable: [name as DetectorName] }, turns)).toEqual(turns.map(() => undefined));
      const other = name === 'truncation' ? 'chanting' : 'truncation';
      expect(levels({ ...options, disable: [other] }, turns).at(-1)).toBe('break');
    });
  }

  it('completion-gate: a failed check still open asks for verification by default; disabled, nothing is recorded or asked', () => {
    const failed = { ...entry('bash', 'pytest tests/test_api.py', 'FAILED'), outcome: 'error' as const, subjects: ['test://tests/test_api.py'] };
    const on = new LoopEngine(resolveDetectionOptions());
    on.record('r', failed);
    expect(on.finishAttempt('r')).toEqual({ ask: true, subjects: ['test://tests/test_api.py'] });
    const off = new LoopEngine(resolveDetectionOptions({ disable: ['completion-gate'] }));
    off.record('r', failed);
    expect(off.finishAttempt('r')).toEqual({ ask: false, subjects: [] });
    expect(off.hasOpenChecks('r')).toBe(false);
    expect(off.exportedUnresolved('r')).toEqual([]);
  });
});
