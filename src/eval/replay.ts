import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { context, type Attributes, type Tracer } from '@opentelemetry/api';
import { register } from '../../instrumentation/register.js';
import { setToolOutcome } from '../../instrumentation/outcome.js';
import { LoopBreakError } from '../breaker.js';
import { LoopGuardSpanProcessor } from '../processor.js';
import { MODEL_TOOL } from '../engine.js';
import { outputTextAttributes, readModelTurn } from '../model-span.js';
import type { DetectionOptions } from '../options.js';
import * as sc from '../semconv.js';
import { LEVEL_RANK } from '../policy.js';
import type { Level } from '../types.js';
import type { ModelStep, ToolStep, Trajectory } from './corpus.js';
import type { CaseRun } from './score.js';

/** One verdict a replayed run reached, as `loopguard scan` reports it. */
export interface Verdict {
  /** 1-based step of the call that reached it. */
  step: number;
  level: Level;
  detector: string;
  /** Whole repetitions of the pattern, and its length in calls (1 for a repeat of one call). */
  count: number;
  period: number;
  /** The tool of the call that reached the verdict. */
  tool: string;
}

/** What replaying one run produced: the levels reached and every reported verdict, in step order. */
export interface Replayed {
  run: CaseRun;
  verdicts: Verdict[];
  /** `loopguard.run.exit_reason` of the run's root span (`completed` for a run loopguard never tracked). */
  exitReason: string;
}

/** The error a replayed tool throws for a step recorded as failed. */
class RecordedToolError extends Error {
  override name = 'ToolError';
}

function replayStep(step: ToolStep): unknown {
  if (step.status === 'error') throw new RecordedToolError(step.error ?? 'error');
  // The corpus states the outcome class; a real tool would declare it the same way.
  setToolOutcome(step.status);
  return step.hasResult ? step.result : null;
}

function rank(span: ReadableSpan): number {
  const level = span.attributes[sc.ATTR_LOOPGUARD_LEVEL];
  return typeof level === 'string' ? (LEVEL_RANK[level as Level] ?? 0) : 0;
}

/**
 * The attributes of the LLM span an instrumented client makes for a model
 * turn (GenAI semantic conventions), with content capture off: the text is
 * seen in process, as an adapter sees it, and only what loopguard computes
 * from it (its sketch, its repetition when it chants) is recorded. A
 * `final` answer is marked `loopguard.response.final`.
 */
export function modelTurnAttributes(step: ModelStep): Attributes {
  const attributes: Attributes = {
    [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_CHAT,
    [sc.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: step.outputTokens,
  };
  if (step.inputTokens !== undefined) attributes[sc.ATTR_GEN_AI_USAGE_INPUT_TOKENS] = step.inputTokens;
  if (step.finishReason !== undefined) attributes[sc.ATTR_GEN_AI_RESPONSE_FINISH_REASONS] = [step.finishReason];
  const withText = step.text === undefined ? attributes : { ...attributes, ...outputTextAttributes(step.text) };
  // The agent knows this answer is its last, as an adapter does: the completion gate judges it.
  if (step.final) withText[sc.ATTR_LOOPGUARD_RESPONSE_FINAL] = true;
  return withText;
}

/** Replays a model turn as its LLM span; returns whether the processor stopped the run on it. */
function replayModelTurn(tracer: Tracer, step: ModelStep, origin: number): boolean {
  const startTime = step.t === undefined ? undefined : origin + step.t;
  const span = tracer.startSpan(sc.GEN_AI_OPERATION_CHAT, { attributes: modelTurnAttributes(step), startTime }, context.active());
  span.end(startTime);
  return (span as unknown as ReadableSpan).attributes[sc.ATTR_LOOPGUARD_LEVEL] === 'break';
}

/** The verdicts the processor reported (warnings are throttled, so not every flagged step has one). */
function verdictsOf(tools: ReadableSpan[]): Verdict[] {
  return tools.flatMap((s, i) =>
    s.events
      .filter((e) => e.name === sc.EVENT_LOOPGUARD_LOOP_DETECTED)
      .map((e) => {
        const a = e.attributes ?? {};
        return {
          step: i + 1,
          level: a[sc.ATTR_LOOPGUARD_LEVEL] as Level,
          detector: String(a[sc.ATTR_LOOPGUARD_DETECTOR]),
          count: Number(a[sc.ATTR_LOOPGUARD_COUNT]),
          period: Number(a[sc.ATTR_LOOPGUARD_PERIOD]),
          tool: String(s.attributes[sc.ATTR_GEN_AI_TOOL_NAME] ?? MODEL_TOOL),
        };
      }),
  );
}

/** Reads what the replay's tool and LLM spans say, step by step, as a backend would. */
function readRun(spans: ReadableSpan[]): Replayed {
  const tools = spans
    .filter((s) => s.attributes[sc.ATTR_GEN_AI_OPERATION_NAME] === sc.GEN_AI_OPERATION_EXECUTE_TOOL || readModelTurn(s.attributes) !== undefined)
    .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
  const first = (min: number): number | null => {
    const i = tools.findIndex((s) => rank(s) >= min);
    return i === -1 ? null : i + 1;
  };
  const verdicts = verdictsOf(tools);
  return {
    run: {
      firstWarning: first(LEVEL_RANK.warning),
      firstCritical: first(LEVEL_RANK.critical),
      firstBreak: first(LEVEL_RANK.break),
      detectors: [...new Set(verdicts.map((v) => v.detector))].sort(),
    },
    verdicts,
    exitReason: String(spans.find((s) => s.parentSpanContext === undefined)?.attributes[sc.ATTR_LOOPGUARD_RUN_EXIT_REASON] ?? 'completed'),
  };
}

/**
 * Replays trajectories through the real path: each step is a call of a
 * guarded tool, producing an SDK span that the loopguard processor judges;
 * the verdicts are read back from the finished spans.
 */
export async function replayRuns(trajectories: Pick<Trajectory, 'id' | 'steps' | 'outputBudget'>[], detection: DetectionOptions): Promise<Replayed[]> {
  const exporter = new InMemorySpanExporter();
  // The processor's clock reads the recorded time of the step being replayed, so a pause of hours between two calls
  // ages the run as it did live (runTtlMs forgets a run idle that long); wall time until a step records one.
  let recordedNow: number | undefined;
  const processor = new LoopGuardSpanProcessor({ ...detection, now: () => recordedNow ?? Date.now() });
  const provider = new BasicTracerProvider({ spanProcessors: [processor, new SimpleSpanProcessor(exporter)] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const guard = register({ tracerProvider: provider, processor, appendNudge: false, instrumentations: false });
  const tracer = provider.getTracer('loopguard-eval');
  const runs: Replayed[] = [];
  try {
    for (const t of trajectories) {
      exporter.reset();
      recordedNow = undefined;
      // Recorded timings replay as span times, so spacing between calls is seen as it was.
      const origin = Date.now();
      await guard.run(`eval ${t.id}`, async () => {
        for (const step of t.steps) {
          if (step.t !== undefined) recordedNow = origin + step.t;
          if (step.kind === 'model') {
            if (replayModelTurn(tracer, step, origin)) return;
            continue;
          }
          const startTime = step.t === undefined ? undefined : origin + step.t;
          const endTime = startTime === undefined ? undefined : startTime + (step.durationMs ?? 0);
          try {
            await guard.callTool(step.tool, step.args, () => replayStep(step), { startTime, endTime });
          } catch (err) {
            if (err instanceof LoopBreakError) return;
            if (!(err instanceof RecordedToolError)) throw err;
          }
        }
      }, { maxOutputTokens: t.outputBudget });
      runs.push(readRun(exporter.getFinishedSpans()));
    }
  } finally {
    await provider.shutdown();
    context.disable();
  }
  return runs;
}

/** The levels each trajectory reached, for scoring. */
export async function replayCorpus(trajectories: Trajectory[], detection: DetectionOptions): Promise<CaseRun[]> {
  return (await replayRuns(trajectories, detection)).map((r) => r.run);
}
