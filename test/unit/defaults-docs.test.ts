import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REGISTER_DEFAULTS } from '../../instrumentation/defaults.js';
import { main } from '../../src/cli/main.js';
import { DETECTION_DEFAULTS, DETECTION_RANGES, resolveDetectionOptions } from '../../src/options.js';

/** The README options table: option name → its default cell. */
function readmeDefaults(): Map<string, string> {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Options'), readme.indexOf('## Detectors'));
  const rows = new Map<string, string>();
  for (const line of section.split('\n')) {
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    if (cells.length < 4 || !cells[1]!.startsWith('`')) continue;
    for (const name of cells[1]!.matchAll(/`([^`]+)`/g)) rows.set(name[1]!, cells[2]!);
  }
  return rows;
}

/** A default as the README writes it (the last code span of the cell; — for none). */
function shown(value: unknown): string {
  if (value === undefined) return '—';
  if (typeof value === 'string') return `\`'${value}'\``;
  return `\`${JSON.stringify(value)}\``;
}

describe('the defaults object', () => {
  it('is what the README options table says, option by option', () => {
    const rows = readmeDefaults();
    for (const [option, value] of Object.entries(REGISTER_DEFAULTS)) {
      const cell = rows.get(option);
      expect(cell, `README row for ${option}`).toBeDefined();
      const last = cell === '—' ? '—' : (cell!.match(/`[^`]*`/g)?.at(-1) ?? cell);
      expect(last, option).toBe(shown(value));
      const range = (DETECTION_RANGES as Record<string, readonly number[]>)[option];
      const documented = /\((\d+)\.\.(\d+)\)/.exec(cell!);
      if (documented) expect(range, option).toEqual([Number(documented[1]), Number(documented[2])]);
    }
  });

  it('is what the resolver fills in', () => {
    const resolved = resolveDetectionOptions();
    for (const [option, value] of Object.entries(DETECTION_DEFAULTS)) {
      if (option === 'disable') expect([...resolved.disabled]).toEqual(value);
      else expect(resolved[option as keyof typeof resolved], option).toEqual(value);
    }
  });

  it('is what loopguard --help prints', async () => {
    const out: string[] = [];
    expect(await main(['--help'], { out: (s: string) => void out.push(s), err: () => undefined })).toBe(0);
    for (const [option, value] of Object.entries(DETECTION_DEFAULTS)) {
      expect(out.join('\n')).toMatch(new RegExp(`\\n  ${option} +${value === undefined ? 'none' : JSON.stringify(value).replace(/[[\]{}]/g, '\\$&')}`));
    }
  });
});
