import type { Evidence } from './detectors/index.js';
import type { Level } from './types.js';

/** The evidence behind a verdict, as user code sees it. */
export interface LoopEvidence {
  detector: string;
  /** Whole repetitions: calls, cycle periods, error variants, or tool calls for the budget. */
  count: number;
  /** Cycle length in calls (1 for a single repeated call). */
  period: number;
  /** Step at which the pattern started. */
  since: number;
  /** `{tool}:{argsHash}` of the latest call in the pattern. */
  fingerprint: string;
}

export function publicEvidence(e: Evidence, toolName: string): LoopEvidence {
  return { detector: e.detector, count: e.count, period: e.period, since: e.since, fingerprint: `${toolName}:${e.argsHash}` };
}

interface VerdictErrorFields {
  reason: string;
  detector: string;
  level: Level;
  evidence: LoopEvidence | undefined;
  traceId: string;
  runKey: string;
  step: number;
  tool: string;
}

abstract class VerdictError extends Error {
  abstract readonly code: string;
  readonly reason: string;
  readonly detector: string;
  readonly level: Level;
  readonly evidence: LoopEvidence | undefined;
  readonly traceId: string;
  readonly runKey: string;
  readonly step: number;
  readonly tool: string;

  constructor(message: string, fields: VerdictErrorFields) {
    super(message);
    this.reason = fields.reason;
    this.detector = fields.detector;
    this.level = fields.level;
    this.evidence = fields.evidence;
    this.traceId = fields.traceId;
    this.runKey = fields.runKey;
    this.step = fields.step;
    this.tool = fields.tool;
  }
}

/**
 * Thrown by a guarded tool when loopguard stops the run; every later call in
 * the same run throws it again without executing. Agents catch it to end the
 * run (frameworks surface it as the tool's failure).
 */
export class LoopBreakError extends VerdictError {
  readonly code = 'LOOPGUARD_LOOP_BREAK';
  override readonly name = 'LoopBreakError';
}

/**
 * Thrown instead of returning the synthetic "not executed" result, when the
 * guard is configured with `onBlock: 'throw'`.
 */
export class ToolCallBlockedError extends VerdictError {
  readonly code = 'LOOPGUARD_TOOL_CALL_BLOCKED';
  override readonly name = 'ToolCallBlockedError';
}

export function isLoopGuardVerdictError(err: unknown): err is LoopBreakError | ToolCallBlockedError {
  return err instanceof LoopBreakError || err instanceof ToolCallBlockedError;
}

/**
 * The LoopBreakError behind `err`, also when a framework wrapped it: the
 * standard `cause` chain, and the `error` field of OpenAI Agents'
 * `ToolCallError`. undefined when loopguard did not stop the run.
 */
export function loopBreakOf(err: unknown): LoopBreakError | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
    if (current instanceof LoopBreakError) return current;
    const e = current as { cause?: unknown; error?: unknown };
    current = e.cause ?? e.error;
  }
  return undefined;
}

/** True when loopguard stopped the run, however the framework wrapped the LoopBreakError: `catch (e) { if (isLoopBreak(e)) … }`. */
export function isLoopBreak(err: unknown): boolean {
  return loopBreakOf(err) !== undefined;
}
