import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const support = join(dirname(fileURLToPath(import.meta.url)), 'support');

/** Runs a support script as an ESM app, with or without the import-in-the-middle loader: the JSON line it printed last, and its stderr. */
function spawnChild(script: string, withHook: boolean): { outcome: unknown; stderr: string } {
  const args = ['--import', 'tsx', ...(withHook ? ['--import', join(support, 'iitm-hook.mjs')] : []), join(support, script)];
  const child = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 60_000 });
  const line = child.stdout.trim().split('\n').at(-1) ?? '';
  if (child.status !== 0 || !line.startsWith('{')) throw new Error(`child failed (${child.status}): ${child.stderr.slice(0, 2000)}`);
  return { outcome: JSON.parse(line), stderr: child.stderr };
}

function runChild(withHook: boolean): unknown {
  return spawnChild('esm-ai6-child.ts', withHook).outcome;
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
    const { outcome, stderr } = spawnChild('esm-ai6-register-child.ts', withHook);
    return { ...(outcome as { stops: boolean }), advice: stderr.split('LOOPGUARD_AI6_ESM_NO_LOADER').length - 1 };
  }

  it('without the loader, says once that generateText cannot be stopped, with the fix', () => {
    expect(registerChild(false)).toEqual({ stops: false, advice: 1 });
  });

  it('with the loader, patches generateText (even though loopguard loaded ai first) and says nothing', () => {
    expect(registerChild(true)).toEqual({ stops: true, advice: 0 });
  });
});

describe('ai@7 calls that hide their inputs from telemetry (recordInputs: false), in an ESM app', () => {
  const hiddenChild = (withHook: boolean) => spawnChild('esm-ai7-child.ts', withHook).outcome;

  it('with the loader, generateText and streamText take the message through prepareStep', () => {
    const delivered = { delivered: true, waiting: false };
    expect(hiddenChild(true)).toEqual({ generateText: delivered, streamText: delivered });
  });

  it('without the loader, the message is not lost: it waits for a model call whose prompt loopguard reaches', () => {
    const waiting = { delivered: false, waiting: true };
    expect(hiddenChild(false)).toEqual({ generateText: waiting, streamText: waiting });
  });
});
