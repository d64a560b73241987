/**
 * A test copy of a committed Prometheus rule file in which the named alerts
 * fire at once (`for: 0s`), so a test need not wait out a production `for:`
 * clause. Only those alerts change; the committed file is never touched.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parse, stringify } from 'yaml';

interface RuleFile {
  groups?: { name: string; rules?: { alert?: string; record?: string; for?: string }[] }[];
}

export interface RulesCopy {
  /** The copy to load. */
  readonly path: string;
  /** The `for:` each named alert had in the committed file (undefined: none). */
  readonly originalFor: Readonly<Record<string, string | undefined>>;
  remove(): void;
}

export function rulesFiringAtOnce(committedPath: string, alerts: readonly string[]): RulesCopy {
  const rules = parse(readFileSync(committedPath, 'utf8')) as RuleFile;
  if (rules === null || typeof rules !== 'object' || !Array.isArray(rules.groups)) {
    throw new Error(`${committedPath}: expected a Prometheus rule file with a 'groups' list`);
  }
  const originalFor: Record<string, string | undefined> = {};
  for (const group of rules.groups) {
    for (const rule of group.rules ?? []) {
      if (rule.alert === undefined || !alerts.includes(rule.alert)) continue;
      originalFor[rule.alert] = rule.for;
      rule.for = '0s';
    }
  }
  const missing = alerts.filter((alert) => !(alert in originalFor));
  if (missing.length > 0) throw new Error(`${committedPath} has no alert named ${missing.join(', ')}`);
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-e2e-rules-'));
  const path = join(dir, basename(committedPath));
  writeFileSync(path, stringify(rules));
  return { path, originalFor, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
