import { diag } from '@opentelemetry/api';
import type { LoopEvidence } from '../src/breaker.js';
import type { InternalErrors } from '../src/internal-errors.js';
import { buildNudge } from '../src/nudge.js';
import type { SpanShape } from '../src/span-shape.js';
import type { Level } from '../src/types.js';
import { modelArgsPreview, type ResolvedCapture } from './capture.js';
import type { LoopAction } from './loop-action.js';

/** What `onLoop` receives. */
export interface LoopEvent {
  level: Level;
  /** What loopguard does unless `onLoop` overrides it. */
  action: 'nudge' | 'block' | 'break';
  detector: string;
  /** A ready-to-inject message for the model, with a state panel. */
  nudge: string;
  evidence: LoopEvidence;
  tool: string;
  /** The call's arguments (in-process only; never exported unless content capture is on). */
  args: unknown;
  step: number;
  runKey: string;
  traceId: string;
}

/**
 * What `onLoop` is told of a verdict (the event, with its nudge) and asked
 * (its answer, checked, with a throwing or async hook caught).
 */
export class LoopEvents {
  /** `options`: the guard's, read at each verdict (`onLoop`). */
  constructor(
    private readonly options: { readonly onLoop?: (event: LoopEvent) => unknown },
    private readonly errors: InternalErrors,
    private readonly capture: ResolvedCapture | undefined,
  ) {}

  /** The event of a verdict on a tool call, with the nudge for the model (arguments previewed as capture allows). */
  event(
    span: SpanShape,
    tool: string,
    args: unknown,
    runKey: string,
    level: Level,
    action: LoopEvent['action'],
    evidence: LoopEvidence,
    step: number,
    executed: boolean,
  ): LoopEvent {
    const nudge = buildNudge({ level, evidence, tool, argsPreview: modelArgsPreview(args, this.capture), step, blocked: !executed && level !== 'break' });
    return { level, action, detector: evidence.detector, nudge, evidence, tool, args, step, runKey, traceId: span.spanContext().traceId };
  }

  /** Asks `onLoop` what to do (a throwing or async hook included); undefined: the default action applies. */
  async consult(event: LoopEvent): Promise<LoopAction | undefined> {
    const onLoop = this.options.onLoop;
    if (!onLoop) return undefined;
    const answer: unknown = await this.errors.runAsync('onLoop threw; the default action applies', () => onLoop(event), undefined);
    if (answer === undefined) return undefined;
    if (answer === 'continue' || answer === 'block' || answer === 'break') return answer;
    diag.warn(`loopguard: onLoop returned ${String(answer)}; expected 'continue', 'block', 'break' or nothing`);
    return undefined;
  }
}
