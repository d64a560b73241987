import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const support = join(dirname(fileURLToPath(import.meta.url)), 'support');

function runChild(withHook: boolean): { rejected: boolean; loopBreak?: boolean; steps?: number } {
  const args = ['--import', 'tsx', ...(withHook ? ['--import', join(support, 'iitm-hook.mjs')] : []), join(support, 'esm-ai6-child.ts')];
  const child = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 60_000 });
  const line = child.stdout.trim().split('\n').at(-1) ?? '';
  if (child.status !== 0 || !line.startsWith('{')) throw new Error(`child failed (${child.status}): ${child.stderr.slice(0, 2000)}`);
  return JSON.parse(line) as { rejected: boolean; loopBreak?: boolean; steps?: number };
}

describe('ai@6 generateText under ESM', () => {
  it('with the import-in-the-middle loader registered (--import), a loop break rejects generateText', () => {
    expect(runChild(true)).toEqual({ rejected: true, loopBreak: true });
  });

  it('without the loader, generateText is not patched: the break only fails the tool calls, and the loop runs to stopWhen', () => {
    expect(runChild(false)).toEqual({ rejected: false, steps: 30 });
  });
});

describe('register() in an ESM app with ai@6', () => {
  function registerChild(withHook: boolean): { stops: boolean; advice: number } {
    const args = ['--import', 'tsx', ...(withHook ? ['--import', join(support, 'iitm-hook.mjs')] : []), join(support, 'esm-ai6-register-child.ts')];
    const child = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 60_000 });
    const line = child.stdout.trim().split('\n').at(-1) ?? '';
    if (child.status !== 0 || !line.startsWith('{')) throw new Error(`child failed (${child.status}): ${child.stderr.slice(0, 2000)}`);
    return { ...(JSON.parse(line) as { stops: boolean }), advice: child.stderr.split('LOOPGUARD_AI6_ESM_NO_LOADER').length - 1 };
  }

  it('without the loader, says once that generateText cannot be stopped, with the fix', () => {
    expect(registerChild(false)).toEqual({ stops: false, advice: 1 });
  });

  it('with the loader, patches generateText (even though loopguard loaded ai first) and says nothing', () => {
    expect(registerChild(true)).toEqual({ stops: true, advice: 0 });
  });
});
