import { metrics, type Counter, type MeterProvider } from '@opentelemetry/api';
import * as sc from './semconv.js';
import type { Level } from './types.js';
import { VERSION } from './version.js';

/** The processor's instruments (DESIGN §4): what it saw and decided, counted by the labels operators filter on. */
export class ProcessorMetrics {
  private readonly detectionsCounter: Counter;
  private readonly stoppedCounter: Counter;
  private readonly toolCallsCounter: Counter;
  private readonly runsEndedCounter: Counter;

  /** `activeRuns`: the engine's count of tracked runs, read when the gauge is collected. */
  constructor(meterProvider: MeterProvider | undefined, activeRuns: () => number) {
    const meter = (meterProvider ?? metrics).getMeter('loopguard', VERSION);
    this.detectionsCounter = meter.createCounter(sc.METRIC_LOOPGUARD_DETECTIONS, {
      description: 'Loop verdicts that reached the agent (throttled warnings, every critical and break)',
    });
    this.stoppedCounter = meter.createCounter(sc.METRIC_LOOPGUARD_RUNS_STOPPED, { description: 'Agent runs stopped by loopguard' });
    this.toolCallsCounter = meter.createCounter(sc.METRIC_LOOPGUARD_TOOL_CALLS, { description: 'Tool calls seen, by outcome' });
    this.runsEndedCounter = meter.createCounter(sc.METRIC_LOOPGUARD_RUNS_ENDED, { description: 'Agent runs ended, by exit reason' });
    meter
      .createObservableGauge(sc.METRIC_LOOPGUARD_RUNS_ACTIVE, { description: 'Runs tracked by the detection engine' })
      .addCallback((result) => result.observe(activeRuns()));
  }

  toolCall(tool: string, outcome: string): void {
    this.toolCallsCounter.add(1, { [sc.ATTR_GEN_AI_TOOL_NAME]: tool, [sc.METRIC_ATTR_OUTCOME]: outcome });
  }

  /** A verdict that reached someone; `tool` is absent for one on no single call (a model response, the completion gate). */
  detection(detector: string, level: Level, tool?: string): void {
    if (tool === undefined) this.detectionsCounter.add(1, { [sc.METRIC_ATTR_DETECTOR]: detector, [sc.METRIC_ATTR_LEVEL]: level });
    else this.detectionsCounter.add(1, { [sc.METRIC_ATTR_DETECTOR]: detector, [sc.METRIC_ATTR_LEVEL]: level, [sc.ATTR_GEN_AI_TOOL_NAME]: tool });
  }

  runStopped(reason: string): void {
    this.stoppedCounter.add(1, { [sc.METRIC_ATTR_REASON]: reason });
  }

  runEnded(reason: string): void {
    this.runsEndedCounter.add(1, { [sc.METRIC_ATTR_REASON]: reason });
  }
}
