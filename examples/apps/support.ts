/**
 * Shared frame of the acceptance apps: loopguard set up by `register()`
 * alone (no `guard.run`, no `await guard.ready`), a looping agent and a
 * normal one run one after the other, and one JSON line saying what
 * loopguard did to each. `check.ts` runs the apps and judges the lines.
 */
import { LoopBreakError, register, type FrameworkName, type LoopEvent } from '../../instrumentation/index.js';

export interface AppReport {
  loop: { levels: string[]; caught: string };
  normal: { levels: string[]; completed: boolean };
}

export function setUpApp(framework: FrameworkName, aiModules?: string[]) {
  const events: LoopEvent[] = [];
  const guard = register({
    serviceName: `loopguard-app-${framework}`,
    exporter: 'none',
    instrumentations: { frameworks: [framework], ...(aiModules ? { aiModules } : {}) },
    onLoop: (e) => void events.push(e),
  });
  return { guard, events };
}

/** Runs the looping agent, then the normal one, and prints the report line. */
export async function runApp(app: ReturnType<typeof setUpApp>, looping: () => Promise<unknown>, normal: () => Promise<unknown>): Promise<void> {
  let caught = 'nothing';
  try {
    await looping();
  } catch (err) {
    // What a user writes: the break is an instance of LoopBreakError, whatever the framework.
    caught = err instanceof LoopBreakError ? 'LoopBreakError' : err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  }
  const loopLevels = app.events.map((e) => e.level);
  app.events.length = 0;
  let completed = false;
  try {
    await normal();
    completed = true;
  } catch {
    completed = false;
  }
  const report: AppReport = { loop: { levels: loopLevels, caught }, normal: { levels: app.events.map((e) => e.level), completed } };
  await app.guard.shutdown();
  console.log(JSON.stringify(report));
}
