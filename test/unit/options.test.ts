import { describe, expect, it } from 'vitest';
import { LoopGuardConfigError, resolveDetectionOptions } from '../../src/options.js';
import { DETECTOR_NAMES, PRESETS } from '../../src/config.js';

function rejects(input: unknown, option: string, mention: RegExp): void {
  let error: unknown;
  try {
    resolveDetectionOptions(input as never);
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(LoopGuardConfigError);
  expect((error as LoopGuardConfigError).option).toBe(option);
  expect((error as LoopGuardConfigError).code).toBe('LOOPGUARD_INVALID_OPTION');
  expect((error as Error).message).toMatch(mention);
}

describe('detection options', () => {
  it('fills in every documented default', () => {
    const o = resolveDetectionOptions();
    expect(o).toMatchObject({ preset: 'balanced', window: 30, maxToolCalls: 500, maxRunMs: 0, maxTokens: 0, warningCooldown: 5, maxRuns: 10_000, runTtlMs: 1_800_000 });
    expect(o.thresholds).toEqual(PRESETS.balanced);
  });

  it('merges partial threshold overrides onto the preset', () => {
    const o = resolveDetectionOptions({ preset: 'conservative', thresholds: { 'no-progress': { warning: 5 } } });
    expect(o.thresholds['no-progress']).toEqual({ ...PRESETS.conservative['no-progress'], warning: 5 });
  });

  it('keeps a per-tool subject rule: plain data or a function', () => {
    const rule = (args: unknown) => String(args);
    const o = resolveDetectionOptions({ tools: { a: { subject: 'none' }, b: { subject: { kind: 'service', arg: 'target' } }, c: { subject: rule } } });
    expect([o.tools.a!.subject, o.tools.b!.subject, o.tools.c!.subject]).toEqual(['none', { kind: 'service', arg: 'target' }, rule]);
  });

  it('accepts every detector name in disable, the model side and the completion gate included', () => {
    expect([...resolveDetectionOptions({ disable: [...DETECTOR_NAMES] }).disabled]).toEqual(DETECTOR_NAMES);
    for (const name of ['diminishing-returns', 'truncation', 'repeated-answer', 'chanting', 'completion-gate'] as const) {
      expect(resolveDetectionOptions({ disable: [name] }).disabled.has(name)).toBe(true);
    }
  });

  it('names the option and the accepted values when it rejects one', () => {
    rejects({ preset: 'fast' }, 'preset', /one of "balanced", "aggressive", "conservative"/);
    rejects({ window: 2 }, 'window', /integer from 4 to 256/);
    rejects({ windw: 30 }, 'windw', /known options/);
    rejects({ thresholds: { 'no-progress': { warning: -1 } } }, 'thresholds.no-progress.warning', /integer/);
    rejects({ thresholds: { 'no-progress': { warning: 9, critical: 5 } } }, 'thresholds.no-progress', /warning <= critical <= break/);
    rejects({ thresholds: { loops: {} } }, 'thresholds.loops', /known options/);
    rejects({ disable: ['nope'] }, 'disable', /no-progress/);
    rejects({ tools: { t: { ignore: 'yes' } } }, 'tools.t.ignore', /boolean/);
    rejects({ tools: { t: { ignoreArgs: 'id' } } }, 'tools.t.ignoreArgs', /array of strings/);
    rejects({ tools: { t: { subject: 'url' } } }, 'tools.t.subject', /'none', \{ kind: 'service' \| 'test' \| 'file', arg/);
    rejects({ tools: { t: { subject: { kind: 'host', arg: 'h' } } } }, 'tools.t.subject', /function of the arguments/);
    rejects({ runKeyAttribute: '' }, 'runKeyAttribute', /non-empty/);
    rejects('balanced', 'detection', /an object/);
  });

  it('reports every problem at once, accepted values closest to the mistake first', () => {
    let error: LoopGuardConfigError | undefined;
    try {
      resolveDetectionOptions({ preset: 'agressive', window: 2, maxToolCals: 5, tools: { t: { ignore: 'yes' } } } as never);
    } catch (err) {
      error = err as LoopGuardConfigError;
    }
    expect(error).toBeInstanceOf(LoopGuardConfigError);
    expect(error!.problems.map((p) => p.option)).toEqual(['maxToolCals', 'preset', 'window', 'tools.t.ignore']);
    expect(error!.problems[0]!.expected).toMatch(/^one of the known options "maxToolCalls", /);
    expect(error!.problems[1]!.expected).toMatch(/^one of "aggressive", /);
    expect(error!.message).toMatch(/^loopguard: 4 invalid options:\n  - option "maxToolCals"/);
  });
});
