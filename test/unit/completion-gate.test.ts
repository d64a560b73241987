import { describe, expect, it } from 'vitest';
import { checkOutcome, CompletionGate, verifyMessage } from '../../src/completion-gate.js';
import { WHOLE_SUITE } from '../../src/subjects.js';

describe('CompletionGate', () => {
  it('keeps a failed check open until a success on the same subject clears it', () => {
    const gate = new CompletionGate();
    gate.record(['service://localhost:8080'], 'error', true);
    gate.record(['service://localhost:9090'], 'ok', true);
    expect(gate.open).toEqual(['service://localhost:8080']);
    gate.record(['service://localhost:8080'], 'empty', true);
    expect(gate.open).toEqual([]);
  });

  it('does not let a pending answer clear a failure', () => {
    const gate = new CompletionGate();
    gate.record(['test://a'], 'error', true);
    gate.record(['test://a'], 'pending', true);
    expect(gate.open).toEqual(['test://a']);
  });

  it('clears every test subject when the whole suite passes, but not the suite when one test passes', () => {
    const gate = new CompletionGate();
    gate.record(['test://a', 'test://b', 'file://x'], 'error', true);
    gate.record([WHOLE_SUITE], 'ok', true);
    expect(gate.open).toEqual(['file://x']);
    gate.record([WHOLE_SUITE], 'error', true);
    gate.record(['test://a'], 'ok', true);
    expect(gate.open).toEqual(['file://x', WHOLE_SUITE]);
  });

  it('asks once, then records every later finish with failures still open', () => {
    const gate = new CompletionGate();
    expect(gate.finish()).toEqual({ ask: false, subjects: [] });
    gate.record(['service://db:5432'], 'error', true);
    expect(gate.finish()).toEqual({ ask: true, subjects: ['service://db:5432'] });
    expect(gate.finish()).toEqual({ ask: false, subjects: ['service://db:5432'] });
    expect(gate.unsupportedFinishes).toBe(1);
  });

  it('stays bounded: the oldest open subject goes first', () => {
    const gate = new CompletionGate();
    for (let i = 0; i < 40; i++) gate.record([`file://f${i}`], 'error', true);
    expect(gate.open).toHaveLength(32);
    expect(gate.open[0]).toBe('file://f8');
  });

  it('exports a subject by name only when the arguments it came from were exported; else its kind and a hash', () => {
    const gate = new CompletionGate();
    gate.record(['service://db:5432'], 'error', true);
    gate.record(['file:///home/alice/notes.md'], 'error', false);
    expect(gate.open).toEqual(['service://db:5432', 'file:///home/alice/notes.md']);
    const [named, hashed] = gate.exported;
    expect(named).toBe('service://db:5432');
    expect(hashed).toMatch(/^file:\/\/#[0-9a-f]{16}$/);
    expect(hashed).not.toContain('alice');
  });
});

describe('checkOutcome', () => {
  it('reads the exit code as coding agents spell it: nonzero failed, zero passed', () => {
    expect(checkOutcome({ exit_code: 1, output: '1 failed, 12 passed' })).toBe('error');
    expect(checkOutcome({ exitCode: 2, stdout: '', stderr: 'curl: (22) The requested URL returned error: 500' })).toBe('error');
    expect(checkOutcome({ returncode: 0, output: '13 passed' })).toBe('ok');
    expect(checkOutcome({ return_code: 0 })).toBe('ok');
    expect(checkOutcome({ exit_status: 127, output: 'pytest: command not found' })).toBe('error');
    expect(checkOutcome({ exitStatus: 0 })).toBe('ok');
    expect(checkOutcome({ exit: 1, out: 'Tests: 1 failed, 212 passed' })).toBe('error');
    expect(checkOutcome({ exit_code: -1, output: 'Command timed out' })).toBe('error');
  });

  it('reads nothing from results without an integer exit code', () => {
    expect(checkOutcome('exit_code: 1')).toBeUndefined();
    expect(checkOutcome({ exit_code: '1' })).toBeUndefined();
    expect(checkOutcome({ exit_code: 1.5 })).toBeUndefined();
    expect(checkOutcome({ status: 500, body: 'error' })).toBeUndefined();
    expect(checkOutcome([{ exit_code: 1 }])).toBeUndefined();
    expect(checkOutcome(null)).toBeUndefined();
  });
});

describe('verifyMessage', () => {
  it('names every subject', () => {
    const text = verifyMessage(['service://a:1', 'test://b']);
    expect(text).toContain('- service://a:1\n- test://b');
    expect(text).toMatch(/Re-run the check/);
  });
});
