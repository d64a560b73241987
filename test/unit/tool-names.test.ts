import { describe, expect, it } from 'vitest';
import { ToolNames } from '../../src/tool-names.js';

describe('ToolNames', () => {
  it('gives each name its own id and its name back', () => {
    const t = new ToolNames();
    const ids = ['search', 'read_file', 'bash'].map((n) => t.id(n));
    expect(new Set(ids).size).toBe(3);
    expect(t.id('read_file')).toBe(ids[1]);
    expect(ids.map((id) => t.name(id))).toEqual(['search', 'read_file', 'bash']);
  });

  it('stays bounded past its exact names: overflow names share hashed ids, stably', () => {
    const t = new ToolNames(8);
    const ids = new Map<string, number>();
    for (let i = 0; i < 10_000; i++) ids.set(`tool-${i}`, t.id(`tool-${i}`));
    for (const [name, id] of ids) {
      expect(id).toBeLessThan(16);
      expect(t.id(name)).toBe(id);
    }
    expect(t.name(ids.get('tool-3')!)).toBe('tool-3');
    const late = t.id('made-up-tool');
    expect(late).toBeGreaterThanOrEqual(8);
    expect(t.name(late)).toBe('made-up-tool');
  });

  it('answers an unknown id with an empty name', () => {
    expect(new ToolNames(4).name(99)).toBe('');
  });
});
