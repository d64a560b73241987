import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const child = join(dirname(fileURLToPath(import.meta.url)), 'support', 'startup-child.ts');

describe('an agent run right after register()', () => {
  it('is guarded from its first tool call, with no await of guard.ready (tsx)', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', child], { encoding: 'utf8', timeout: 90_000 });
    const line = run.stdout.trim().split('\n').at(-1) ?? '';
    if (run.status !== 0 || !line.startsWith('{')) throw new Error(`child failed (${run.status}): ${run.stderr.slice(0, 2000)}`);
    const outcome = JSON.parse(line) as Record<string, { executed: number; toolSpans: number; ended: string }>;
    for (const framework of ['langgraph', 'openai-agents']) {
      const o = outcome[framework]!;
      // Every attempt has a guard span, and the loop was stopped long before the script ran out.
      expect(o.toolSpans, framework).toBeGreaterThan(o.executed);
      expect(o.executed, framework).toBeLessThan(10);
      expect(o.ended, framework).toBe('loop break');
    }
  });
});
