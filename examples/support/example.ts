/**
 * Shared frame of the framework examples: loopguard set up through
 * `register()` plus the framework adapters, a timeline of what the agent did
 * and what loopguard decided, and a verdict on how the run ended. Each
 * example exits 0 only when its agent was nudged, then blocked, then stopped
 * by a loop break; anything else exits 1 (`npm run examples` relies on it).
 */
import type { FrameworkName } from '../../instrumentation/adapters/index.js';
import { LoopBreakError, register, type LoopEvent } from '../../instrumentation/index.js';

export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

const exportsSpans = Boolean(process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);

export interface Example {
  guard: ReturnType<typeof register>;
  /** Call from inside a tool: prints that the tool really ran. */
  executed(call: string, result: unknown): void;
}

export async function setUp(name: string, framework: FrameworkName, aiModules?: string[]): Promise<Example & { events: LoopEvent[] }> {
  const events: LoopEvent[] = [];
  const guard = register({
    serviceName: `loopguard-example-${name}`,
    exporter: exportsSpans ? 'otlp' : 'none',
    instrumentations: { frameworks: [framework], ...(aiModules ? { aiModules } : {}) },
    onLoop: (e) => {
      events.push(e);
      const what = e.level === 'warning' ? 'NUDGE' : e.level === 'critical' ? 'BLOCK' : 'BREAK';
      console.log(`  step ${String(e.step).padStart(2)}  loopguard ${what.padEnd(5)} ${e.detector} (${e.evidence.count}x): ${clip(e.nudge.split('\n')[0] ?? '', 90)}`);
    },
  });
  console.log(`\n== ${name} ==`);
  return {
    guard,
    events,
    executed(call, result) {
      const text = typeof result === 'string' ? result : JSON.stringify(result);
      console.log(`           tool ran     ${call} -> ${clip(text, 50)}`);
    },
  };
}

/**
 * Checks the story the example must tell, prints the ending, and sets the
 * exit code: a nudge first, then a blocked call, then a LoopBreakError from a
 * loop detector (not an `onLoop` override, not a budget fuse).
 */
export async function conclude(example: Example & { events: LoopEvent[] }, error: unknown): Promise<void> {
  const levels = example.events.map((e) => e.level);
  const firstWarning = levels.indexOf('warning');
  const firstCritical = levels.indexOf('critical');
  const firstBreak = levels.indexOf('break');
  const problems: string[] = [];
  if (firstWarning < 0) problems.push('the agent was never nudged');
  if (firstCritical < 0) problems.push('no call was blocked');
  if (firstWarning >= 0 && firstCritical >= 0 && firstCritical < firstWarning) problems.push('blocked before it was nudged');
  if (!(error instanceof LoopBreakError)) problems.push(`the run did not end with a LoopBreakError (${error instanceof Error ? `${error.name}: ${error.message}` : String(error)})`);
  else {
    if (firstBreak < 0 || firstBreak < firstCritical) problems.push('the break did not follow the block');
    if (error.reason === 'onLoop' || error.detector.startsWith('budget')) problems.push(`stopped for the wrong reason: ${error.reason}`);
    console.log(`  stopped at step ${error.step}: ${error.code} reason=${error.reason} trace=${error.traceId}`);
  }
  await example.guard.shutdown();
  if (problems.length > 0) {
    console.log(`  FAILED: ${problems.join('; ')}`);
    process.exitCode = 1;
  } else console.log('  OK: nudged, blocked, then stopped');
}
