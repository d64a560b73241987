/**
 * `npm run examples` runs this too: every acceptance app, through tsx and
 * compiled (dist/, when built), APPS_REPEAT times each (default 5). An app
 * passes when its looping agent was nudged, then blocked, then stopped with
 * a LoopBreakError the caller caught, its normal agent finished with no
 * verdict at all, and no exported span carried the looping call's arguments. Exits non-zero on any miss.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AppReport } from './support.js';

export const APPS = ['ai-sdk', 'ai-sdk-v6', 'langgraph', 'langchain-agent', 'mcp', 'openai-agents'];

/** What is wrong with an app's report; empty when it passed. */
export function problemsOf(report: AppReport): string[] {
  const problems: string[] = [];
  const { levels, caught } = report.loop;
  const first = (level: string) => levels.indexOf(level);
  if (first('warning') < 0) problems.push('the looping agent was never nudged');
  if (first('critical') < 0) problems.push('no call of the looping agent was blocked');
  if (first('break') < 0) problems.push('the looping agent was never stopped');
  if (!(first('warning') < first('critical') && first('critical') < first('break'))) problems.push(`out of order: ${levels.join(', ')}`);
  if (caught !== 'LoopBreakError') problems.push(`the caller caught ${caught}, not a LoopBreakError`);
  if (report.normal.levels.length > 0) problems.push(`the normal agent got verdicts: ${report.normal.levels.join(', ')}`);
  if (!report.normal.completed) problems.push('the normal agent did not finish');
  if (report.leaks.length > 0) problems.push(`tool arguments reached exported spans: ${report.leaks.join(', ')}`);
  return problems;
}

/** Runs one app in a child process and reads its report line. */
export function runAppProcess(command: string[], cwd: string): AppReport | string {
  const child = spawnSync(process.execPath, command, { cwd, encoding: 'utf8', timeout: 120_000 });
  const line = child.stdout?.trim().split('\n').at(-1) ?? '';
  if (child.status !== 0 || !line.startsWith('{')) return `exit ${child.status ?? child.signal}: ${(child.stderr ?? '').slice(0, 1000)}`;
  return JSON.parse(line) as AppReport;
}

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url).replace(/\.[jt]s$/, '') === process.argv[1].replace(/\.[jt]s$/, '');
if (isMain) {
  const here = dirname(fileURLToPath(import.meta.url));
  // Source checkout: examples/apps; compiled: dist/examples/apps. Both are two levels below the repository root.
  const root = join(here, here.includes(`${join('dist', 'examples')}`) ? '../../..' : '../..');
  const repeat = Number(process.env.APPS_REPEAT ?? 5);
  const modes: Array<[string, (app: string) => string[]]> = [['tsx', (app) => ['--import', 'tsx', join(root, 'examples/apps', `${app}.ts`)]]];
  if (existsSync(join(root, 'dist/examples/apps'))) modes.push(['compiled', (app) => [join(root, 'dist/examples/apps', `${app}.js`)]]);
  else console.log('(dist/examples/apps not built: compiled runs skipped; run npm run build)');
  let misses = 0;
  for (const app of APPS) {
    for (const [mode, command] of modes) {
      for (let i = 1; i <= repeat; i++) {
        const report = runAppProcess(command(app), root);
        const problems = typeof report === 'string' ? [report] : problemsOf(report);
        if (problems.length > 0) misses++;
        console.log(`${problems.length === 0 ? 'ok  ' : 'MISS'} ${app} (${mode}) run ${i}/${repeat}${problems.length ? `: ${problems.join('; ')}` : ''}`);
      }
    }
  }
  console.log(`\nacceptance apps: ${misses === 0 ? 'no miss' : `${misses} misses`}`);
  process.exitCode = misses === 0 ? 0 : 1;
}
