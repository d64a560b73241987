import { context, SpanKind, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { register } from '../instrumentation/register.js';
import { LoopGuardSpanProcessor } from '../src/processor.js';
import * as sc from '../src/semconv.js';
import { DiscardingSpanExporter } from './discard-exporter.js';
import { ARGS, PAYLOAD_COUNT, RESULTS, meanJsonBytes, searchTool, type SearchArgs } from './payloads.js';
import { cpuNs, median, nowNs, round, spread } from './stats.js';

/**
 * overheadRatio: the cost of one tool call through loopguard against the same
 * call with only a plain OpenTelemetry span, both on an SDK 2.x provider with
 * a BatchSpanProcessor over a discarding exporter and the AsyncLocalStorage
 * context manager. Both sides call the same async tool with the same ~200-byte
 * arguments (rotating among 50) inside a root span renewed every
 * `callsPerRun` calls, so loopguard sees normal runs that never reach the
 * tool-call fuse. Sides alternate within each round and which goes first
 * alternates between rounds, so drift (JIT, GC, thermal) hits both alike.
 */

export interface OverheadOptions {
  rounds: number;
  warmupRounds: number;
  callsPerRound: number;
  callsPerRun: number;
}

export const DEFAULT_OVERHEAD_OPTIONS: OverheadOptions = { rounds: 15, warmupRounds: 4, callsPerRound: 5_000, callsPerRun: 100 };

export interface OverheadResult {
  overheadRatio: number;
  baselineNsPerCall: number;
  loopguardNsPerCall: number;
  addedNsPerCall: number;
  medianOfRoundRatios: number;
  /** The same comparison in CPU time (process user + system): a cross-check that other load on the machine does not move. */
  cpuRatio: number;
  cpuNsPerCall: { baseline: number; loopguard: number };
  /** ns per call of each timed round, in order, for a look at the noise. */
  samples: { baseline: number[]; loopguard: number[] };
  baselineSpread: number;
  loopguardSpread: number;
  rounds: number;
  warmupRounds: number;
  callsPerRound: number;
  callsPerRun: number;
  argsBytes: number;
  resultBytes: number;
  spansExported: { baseline: number; loopguard: number };
  spansExpected: number;
  detections: number;
}

type Side = (calls: number) => Promise<void>;

const TOOL = 'search';

function baselineSide(tracer: Tracer, cursor: { i: number }, callsPerRun: number): Side {
  const callOnce = (args: SearchArgs) =>
    tracer.startActiveSpan(
      `${sc.GEN_AI_OPERATION_EXECUTE_TOOL} ${TOOL}`,
      { kind: SpanKind.INTERNAL, attributes: { [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_EXECUTE_TOOL, [sc.ATTR_GEN_AI_TOOL_NAME]: TOOL } },
      async (span) => {
        try {
          return await searchTool(args);
        } finally {
          span.end();
        }
      },
    );
  return async (calls) => {
    for (let done = 0; done < calls; done += callsPerRun) {
      const n = Math.min(callsPerRun, calls - done);
      await tracer.startActiveSpan(
        `${sc.GEN_AI_OPERATION_INVOKE_AGENT} bench`,
        { root: true, attributes: { [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_INVOKE_AGENT, [sc.ATTR_GEN_AI_AGENT_NAME]: 'bench' } },
        async (root) => {
          for (let k = 0; k < n; k++) await callOnce(ARGS[cursor.i++ % PAYLOAD_COUNT]!);
          root.end();
        },
      );
    }
  };
}

function loopguardSide(search: (args: SearchArgs) => Promise<unknown>, guardRun: (fn: () => Promise<void>) => Promise<void>, cursor: { i: number }, callsPerRun: number): Side {
  return async (calls) => {
    for (let done = 0; done < calls; done += callsPerRun) {
      const n = Math.min(callsPerRun, calls - done);
      await guardRun(async () => {
        for (let k = 0; k < n; k++) await search(ARGS[cursor.i++ % PAYLOAD_COUNT]!);
      });
    }
  };
}

/** Wall and CPU (all threads) ns per call of one side's round. */
async function timeSide(side: Side, calls: number): Promise<{ wall: number; cpu: number }> {
  const c0 = cpuNs();
  const t0 = nowNs();
  await side(calls);
  const wall = (nowNs() - t0) / calls;
  return { wall, cpu: (cpuNs() - c0) / calls };
}

export async function measureOverhead(options: OverheadOptions = DEFAULT_OVERHEAD_OPTIONS): Promise<OverheadResult> {
  const { rounds, warmupRounds, callsPerRound, callsPerRun } = options;
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);

  const baselineExporter = new DiscardingSpanExporter();
  const baselineProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(baselineExporter)] });

  let detections = 0;
  const loopguardExporter = new DiscardingSpanExporter();
  const processor = new LoopGuardSpanProcessor({ onDetection: () => void detections++ });
  const loopguardProvider = new BasicTracerProvider({ spanProcessors: [processor, new BatchSpanProcessor(loopguardExporter)] });
  const guard = register({ tracerProvider: loopguardProvider, processor, instrumentations: false });

  try {
    const baseline = baselineSide(baselineProvider.getTracer('bench'), { i: 0 }, callsPerRun);
    const search = guard.wrapTool(TOOL, searchTool);
    const loopguard = loopguardSide(search, (fn) => guard.run('bench', fn), { i: 0 }, callsPerRun);

    const baselineNs: number[] = [];
    const loopguardNs: number[] = [];
    const baselineCpu: number[] = [];
    const loopguardCpu: number[] = [];
    const ratios: number[] = [];
    for (let r = 0; r < warmupRounds + rounds; r++) {
      let b: { wall: number; cpu: number };
      let l: { wall: number; cpu: number };
      if (r % 2 === 0) {
        b = await timeSide(baseline, callsPerRound);
        l = await timeSide(loopguard, callsPerRound);
      } else {
        l = await timeSide(loopguard, callsPerRound);
        b = await timeSide(baseline, callsPerRound);
      }
      if (r < warmupRounds) continue;
      baselineNs.push(b.wall);
      loopguardNs.push(l.wall);
      baselineCpu.push(b.cpu);
      loopguardCpu.push(l.cpu);
      ratios.push(l.wall / b.wall);
    }

    await baselineProvider.forceFlush();
    await loopguardProvider.forceFlush();
    const totalCalls = (warmupRounds + rounds) * callsPerRound;
    const runs = (warmupRounds + rounds) * Math.ceil(callsPerRound / callsPerRun);
    const b = median(baselineNs);
    const l = median(loopguardNs);
    return {
      overheadRatio: round(l / b, 3),
      baselineNsPerCall: round(b),
      loopguardNsPerCall: round(l),
      addedNsPerCall: round(l - b),
      medianOfRoundRatios: round(median(ratios), 3),
      cpuRatio: round(median(loopguardCpu) / median(baselineCpu), 3),
      cpuNsPerCall: { baseline: round(median(baselineCpu)), loopguard: round(median(loopguardCpu)) },
      samples: { baseline: baselineNs.map((v) => round(v)), loopguard: loopguardNs.map((v) => round(v)) },
      baselineSpread: round(spread(baselineNs), 3),
      loopguardSpread: round(spread(loopguardNs), 3),
      rounds,
      warmupRounds,
      callsPerRound,
      callsPerRun,
      argsBytes: meanJsonBytes(ARGS),
      resultBytes: meanJsonBytes(RESULTS),
      spansExported: { baseline: baselineExporter.exported, loopguard: loopguardExporter.exported },
      spansExpected: totalCalls + runs,
      detections,
    };
  } finally {
    await guard.shutdown();
    await baselineProvider.shutdown();
    await loopguardProvider.shutdown();
    context.disable();
  }
}
