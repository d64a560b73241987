/** Runs promtool (from the Prometheus Debian package) and returns its output. */
import { spawnSync } from 'node:child_process';
import { binaryPath } from './paths.js';

export interface PromtoolResult {
  code: number | null;
  output: string;
}

export function runPromtool(args: readonly string[], cwd?: string): PromtoolResult {
  const result = spawnSync(binaryPath('promtool'), args, { cwd, encoding: 'utf8', timeout: 120_000 });
  if (result.error) throw new Error(`promtool ${args.join(' ')} could not run: ${result.error.message}`);
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}
