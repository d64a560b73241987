/**
 * `npm run examples`: runs every framework example in its own Node process
 * (each registers its own tracer provider) and exits non-zero if any agent
 * was not stopped, or was stopped for the wrong reason.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const EXAMPLES = ['ai-sdk.ts', 'ai-sdk-v6.ts', 'langgraph.ts', 'mcp.ts', 'openai-agents.ts'];

let failed = 0;
for (const file of EXAMPLES) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(here, file)], { stdio: 'inherit', env: process.env, timeout: 120_000 });
  if (run.status !== 0) {
    failed += 1;
    console.error(`examples/${file} failed (${run.error ? run.error.message : `exit ${run.status ?? run.signal}`})`);
  }
}
console.log(`\n${EXAMPLES.length - failed} passed, ${failed} failed`);
// The acceptance apps: register() alone, through tsx and compiled, 5 times each.
const apps = spawnSync(process.execPath, ['--import', 'tsx', join(here, 'apps', 'check.ts')], { stdio: 'inherit', env: process.env, timeout: 1_800_000 });
if (apps.status !== 0) failed += 1;
process.exitCode = failed === 0 ? 0 : 1;
