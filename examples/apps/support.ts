/**
 * Shared frame of the acceptance apps: loopguard set up by `register()`
 * alone (no `guard.run`, no `await guard.ready`), a looping agent and a
 * normal one run one after the other, and one JSON line saying what
 * loopguard did to each. `check.ts` runs the apps and judges the lines.
 */
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { LoopBreakError, register, type FrameworkName, type LoopEvent } from '../../instrumentation/index.js';

/** The order id the looping agent insists on: a stand-in for a secret, which no exported span may carry (content capture is off). */
export const LOOP_ORDER_ID = 'A-10492-hunter2-SECRET';

export interface AppReport {
  loop: { levels: string[]; caught: string };
  normal: { levels: string[]; completed: boolean };
  /** Exported spans (name, attributes, status, events) that carry LOOP_ORDER_ID. */
  leaks: string[];
}

function leaks(spans: ReadableSpan[]): string[] {
  return spans
    .filter((s) => JSON.stringify({ n: s.name, a: s.attributes, st: s.status, e: s.events.map((e) => [e.name, e.attributes]) }).includes(LOOP_ORDER_ID))
    .map((s) => s.name);
}

export function setUpApp(framework: FrameworkName, aiModules?: string[]) {
  const events: LoopEvent[] = [];
  const exporter = new InMemorySpanExporter();
  const guard = register({
    serviceName: `loopguard-app-${framework}`,
    exporter,
    instrumentations: { frameworks: [framework], ...(aiModules ? { aiModules } : {}) },
    onLoop: (e) => void events.push(e),
  });
  return { guard, events, exporter };
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
  await app.guard.flush();
  const report: AppReport = {
    loop: { levels: loopLevels, caught },
    normal: { levels: app.events.map((e) => e.level), completed },
    leaks: leaks(app.exporter.getFinishedSpans()),
  };
  await app.guard.shutdown();
  console.log(JSON.stringify(report));
}
