import { context, SpanKind, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { register } from '../instrumentation/register.js';
import { LoopGuardSpanProcessor } from '../src/processor.js';
import * as sc from '../src/semconv.js';
import { hashText } from '../src/fingerprint/hash.js';
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
 * rotates between rounds, so drift (JIT, GC, thermal) hits all alike.
 *
 * A third side, the contract floor, is the plain span plus the least any
 * implementation of DESIGN §4 must do on the calling path: SHA-256 of the
 * arguments before the call and of the result after it, written as the two
 * hash attributes, over plain `JSON.stringify` (cheaper than any canonical
 * form) and with no detection at all. `floorRatio` says how much of the bar
 * the contract itself uses up on this machine.
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
  /** The contract floor (see above) against the plain span: no loop detector that writes the hashes can be cheaper. */
  floorRatio: number;
  floorNsPerCall: number;
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
  spansExported: { baseline: number; floor: number; loopguard: number };
  spansExpected: number;
  detections: number;
}

type Side = (calls: number) => Promise<void>;

const TOOL = 'search';

/** The plain span call, or (`hashes`) the contract floor: the same span with both hash attributes. */
function plainSide(tracer: Tracer, cursor: { i: number }, callsPerRun: number, hashes: boolean): Side {
  const callOnce = (args: SearchArgs) =>
    tracer.startActiveSpan(
      `${sc.GEN_AI_OPERATION_EXECUTE_TOOL} ${TOOL}`,
      { kind: SpanKind.INTERNAL, attributes: { [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_EXECUTE_TOOL, [sc.ATTR_GEN_AI_TOOL_NAME]: TOOL } },
      async (span) => {
        try {
          if (hashes) span.setAttribute(sc.ATTR_LOOPGUARD_ARGS_HASH, hashText(JSON.stringify(args)));
          const result = await searchTool(args);
          if (hashes) span.setAttribute(sc.ATTR_LOOPGUARD_RESULT_HASH, hashText(JSON.stringify(result)));
          return result;
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
  const floorExporter = new DiscardingSpanExporter();
  const floorProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(floorExporter)] });

  let detections = 0;
  const loopguardExporter = new DiscardingSpanExporter();
  const processor = new LoopGuardSpanProcessor({ onDetection: () => void detections++ });
  const loopguardProvider = new BasicTracerProvider({ spanProcessors: [processor, new BatchSpanProcessor(loopguardExporter)] });
  const guard = register({ tracerProvider: loopguardProvider, processor, instrumentations: false });

  try {
    const search = guard.wrapTool(TOOL, searchTool);
    const sides = [
      plainSide(baselineProvider.getTracer('bench'), { i: 0 }, callsPerRun, false),
      plainSide(floorProvider.getTracer('bench'), { i: 0 }, callsPerRun, true),
      loopguardSide(search, (fn) => guard.run('bench', fn), { i: 0 }, callsPerRun),
    ];
    const wall: [number[], number[], number[]] = [[], [], []];
    const cpu: [number[], number[], number[]] = [[], [], []];
    const ratios: number[] = [];
    for (let r = 0; r < warmupRounds + rounds; r++) {
      const timed: { wall: number; cpu: number }[] = [];
      for (let k = 0; k < sides.length; k++) {
        const side = (r + k) % sides.length;
        timed[side] = await timeSide(sides[side]!, callsPerRound);
      }
      if (r < warmupRounds) continue;
      for (let side = 0; side < sides.length; side++) {
        wall[side]!.push(timed[side]!.wall);
        cpu[side]!.push(timed[side]!.cpu);
      }
      ratios.push(timed[2]!.wall / timed[0]!.wall);
    }
    const [baselineNs, floorNs, loopguardNs] = wall;
    const [baselineCpu, , loopguardCpu] = cpu;

    await baselineProvider.forceFlush();
    await floorProvider.forceFlush();
    await loopguardProvider.forceFlush();
    const totalCalls = (warmupRounds + rounds) * callsPerRound;
    const runs = (warmupRounds + rounds) * Math.ceil(callsPerRound / callsPerRun);
    const b = median(baselineNs);
    const l = median(loopguardNs);
    const f = median(floorNs);
    return {
      overheadRatio: round(l / b, 3),
      baselineNsPerCall: round(b),
      loopguardNsPerCall: round(l),
      addedNsPerCall: round(l - b),
      medianOfRoundRatios: round(median(ratios), 3),
      floorRatio: round(f / b, 3),
      floorNsPerCall: round(f),
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
      spansExported: { baseline: baselineExporter.exported, floor: floorExporter.exported, loopguard: loopguardExporter.exported },
      spansExpected: totalCalls + runs,
      detections,
    };
  } finally {
    await guard.shutdown();
    await baselineProvider.shutdown();
    await floorProvider.shutdown();
    await loopguardProvider.shutdown();
    context.disable();
  }
}
