import { trace } from '@opentelemetry/api';
import type { Attributes, SpanKind } from '@opentelemetry/api';
import type { InstrumentationConfig } from '@opentelemetry/instrumentation';
import { ATTR_LOOPGUARD_ARGS_HASH } from '../../../src/semconv.js';
import type { LoopBreakError } from '../../../src/breaker.js';
import type { OpenRun, RunOptions } from '../../agent-run.js';
import type { ModelResponse, ModelResponseInfo } from '../../guard.js';

/** The part of `Guard` an adapter uses: every framework tool call goes through `callTool`. */
export interface ToolCallGuard {
  callTool(
    tool: string,
    args: unknown,
    execute: () => unknown,
    info?: { callId?: string; attributes?: Attributes; spanName?: string; kind?: SpanKind; argsUnseen?: boolean; resultUnseen?: boolean },
  ): Promise<unknown>;
  /** Opens a run for an invocation the framework starts and ends (see shared/auto-run.ts). */
  startRun(name: string, options?: RunOptions): OpenRun;
  /** The completion gate: the message asking the model to verify before finishing, once (see shared/completion-gate.ts). */
  finishGate?(): Promise<string | undefined>;
  /** The framework's own turn limit ended the active run. */
  reachTurnLimit?(): void;
  /** Model turns seen in process (see instrumentation/model-turn.ts). */
  recordModelResponse(response: ModelResponse, info?: ModelResponseInfo): Promise<LoopBreakError | undefined>;
  takeModelMessage(): string | undefined;
  beginModelCall(): () => void;
  endModelCall(): void;
  stoppedRunError(): LoopBreakError | undefined;
}

export interface LoopguardInstrumentationConfig extends InstrumentationConfig {
  guard: ToolCallGuard;
}

/** Attribute naming the adapter that routed a call, so a span says which integration saw it. */
export const ATTR_LOOPGUARD_FRAMEWORK = 'loopguard.framework';

/** The synthetic result `Guard.callTool` returns for a blocked call (`NotExecutedResult`). */
export interface NotExecuted {
  status: 'not_executed';
  reason: string;
  message: string;
}

export function isNotExecuted(value: unknown): value is NotExecuted {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return v.status === 'not_executed' && typeof v.message === 'string';
}

/**
 * True when the caller already runs inside a loopguard tool span (a tool
 * guarded by another adapter or by wrapTool calls this one): the outer span
 * is the tool call, and guarding again would count it twice.
 */
export function insideGuardedToolCall(): boolean {
  const span = trace.getActiveSpan() as { attributes?: Attributes } | undefined;
  return span?.attributes?.[ATTR_LOOPGUARD_ARGS_HASH] !== undefined;
}

/** Parses the JSON text frameworks hand tools their arguments in; other text stays as it is. */
export function parseArguments(text: unknown): unknown {
  if (typeof text !== 'string') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * The enabled instances of one adapter class. Patches are shared by the
 * process, so they serve the most recently enabled instance that is still
 * enabled; disabling it hands them back to the one before.
 */
export class EnabledInstances<T> {
  private readonly stack: T[] = [];

  add(instance: T): void {
    this.remove(instance);
    this.stack.push(instance);
  }

  remove(instance: T): void {
    const at = this.stack.indexOf(instance);
    if (at >= 0) this.stack.splice(at, 1);
  }

  get current(): T | undefined {
    return this.stack.at(-1);
  }
}
