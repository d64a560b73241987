/**
 * Each framework's acceptance app (examples/apps) under tsx: register()
 * alone, no guard.run, no await guard.ready. The looping agent is nudged,
 * blocked and stopped with a catchable LoopBreakError; the normal agent gets
 * no verdict. (`npm run examples` runs them 5 times each, compiled too.)
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { APPS, problemsOf, runAppProcess } from '../../../examples/apps/check.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');

describe('a run per agent invocation, with no code', () => {
  for (const app of APPS) {
    it(app, () => {
      const report = runAppProcess(['--import', 'tsx', join(root, 'examples/apps', `${app}.ts`)], root);
      expect(typeof report === 'string' ? [report] : problemsOf(report)).toEqual([]);
    });
  }
});
