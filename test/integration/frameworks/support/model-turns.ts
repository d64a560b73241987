import { SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { expect, it } from 'vitest';
import type { LoopEvent } from '../../../../instrumentation/index.js';
import { LoopBreakError } from '../../../../src/breaker.js';
import { readModelTurn } from '../../../../src/model-span.js';
import { createHarness, type Harness } from '../../../support/harness.js';

/** One scripted model response: what a framework's mock model answers with on one call. */
export interface ScriptedTurn {
  text: string;
  outputTokens: number;
  finishReason: 'stop' | 'length';
}

/** A model run to completion by a continuation loop ("continue" after each answer), under an optional output budget. */
export interface Scenario {
  turns: ScriptedTurn[];
  budget?: number;
}

const said = (text: string, outputTokens: number): ScriptedTurn => ({ text, outputTokens, finishReason: 'stop' });
const cut = (text: string, outputTokens: number): ScriptedTurn => ({ text, outputTokens, finishReason: 'length' });

/** A long answer (well over the sketch's 16 word bigrams), the same each time it is given. */
const ANSWER =
  'The deployment failed because the database migration timed out while the schema lock was held by the nightly backup job, so the service never became ready and the health check kept failing until the rollout was aborted.';

export const SCENARIOS = {
  /** 600 new tokens per answer against 2000: 1800 (90 %) is told, 2400 stops the run. */
  keepsWriting: { budget: 2000, turns: Array.from({ length: 6 }, (_, i) => said(`Section ${i + 1} of the report, new material.`, 600)) },
  /** Continuations adding 100 tokens each: the third continuation is the second low one in a row past the minimum. */
  diminishing: { budget: 100_000, turns: Array.from({ length: 6 }, (_, i) => said(`Note ${i + 1}: little to add.`, 100)) },
  /** Cut off three times in a row. */
  truncated: { turns: [cut('The table begins', 400), cut('row 12 of the table', 400), cut('row 24 of the table', 400), said('The end.', 50), said('The end.', 50)] },
  /** Cut off once, then finished. */
  truncatedOnce: { turns: [cut('The table begins', 400), said('The rest of the table, finished.', 300)] },
  /** The same long answer, over and over. */
  repeating: { turns: Array.from({ length: 4 }, () => said(ANSWER, 60)) },
} satisfies Record<string, Scenario>;

/** A guard on a fresh harness, recording what `onLoop` is told. */
export function modelHarness(): { h: Harness; events: LoopEvent[] } {
  const events: LoopEvent[] = [];
  const h = createHarness({ onLoop: (e) => void events.push(e) });
  return { h, events };
}

/**
 * The run's LLM spans loopguard recorded a response on (its own or a tracing
 * integration's it adopted), in order: one per model response (a tracing
 * integration's span of a refused call is no response).
 */
export function llmSpans(h: Harness): ReadableSpan[] {
  return h
    .spans()
    .filter((s) => s.attributes['loopguard.framework'] !== undefined && readModelTurn(s.attributes) !== undefined && s.status.code !== SpanStatusCode.ERROR)
    .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
}

export function rootSpan(h: Harness): ReadableSpan {
  return h.spans().find((s) => s.parentSpanContext === undefined)!;
}

/** The outcome of driving a scenario: the error the loop ended with (if any) and each prompt the model read, as JSON text. */
export interface Driven {
  error: unknown;
  prompts: string[];
}

export function expectKeepsWritingStoppedAtBudget(h: Harness, { error, prompts }: Driven): void {
  // Told at 90 % (the third answer), in the next model call's input.
  expect(prompts[3]).toContain('Output token budget: 1800 of 2000 tokens used (90 %)');
  expect(prompts.filter((p) => p.includes('Output token budget:'))).toHaveLength(1);
  expect(error).toBeInstanceOf(LoopBreakError);
  expect((error as LoopBreakError).reason).toBe('budget');
  // The fourth answer crossed the budget: no fifth model call.
  expect(prompts).toHaveLength(4);
  const spans = llmSpans(h);
  expect(spans.map((s) => s.attributes['gen_ai.usage.output_tokens'])).toEqual([600, 600, 600, 600]);
  expect(spans[3]!.attributes['loopguard.level']).toBe('break');
  expect(rootSpan(h).attributes['loopguard.run.exit_reason']).toBe('budget');
}

function expectDiminishingStopped(h: Harness, { error, prompts }: Driven): void {
  expect(error).toBeInstanceOf(LoopBreakError);
  expect((error as LoopBreakError).reason).toBe('diminishing-returns');
  expect(prompts).toHaveLength(4);
  expect(rootSpan(h).attributes['loopguard.run.exit_reason']).toBe('budget');
}

function expectTruncationStopped(h: Harness, { error, prompts }: Driven): void {
  expect(prompts[1]).toContain('Output limit hit: continue from where you stopped');
  expect(error).toBeInstanceOf(LoopBreakError);
  expect((error as LoopBreakError).reason).toBe('truncation');
  expect(prompts).toHaveLength(3);
  expect(llmSpans(h).map((s) => s.attributes['gen_ai.response.finish_reasons'])).toEqual([['length'], ['length'], ['length']]);
  expect(rootSpan(h).attributes['loopguard.run.exit_reason']).toBe('truncation');
}

function expectTruncationRecovered(h: Harness, { error, prompts }: Driven): void {
  expect(error).toBeUndefined();
  expect(prompts[1]).toContain('Output limit hit');
  expect(prompts).toHaveLength(2);
  expect(rootSpan(h).attributes['loopguard.run.exit_reason']).toBe('completed');
}

function expectRepeatingNudged(h: Harness, events: LoopEvent[], { error, prompts }: Driven, tracingScope: string | undefined): void {
  expect(error).toBeUndefined();
  expect(prompts[3]).toContain('You have given nearly the same answer 3 times');
  expect(events.map((e) => [e.tool, e.detector, e.level])).toEqual([
    ['(model)', 'repeated-answer', 'warning'],
    ['(model)', 'repeated-answer', 'warning'],
  ]);
  expect(rootSpan(h).attributes['loopguard.run.exit_reason']).toBe('completed');
  // The text itself never reaches a span (content capture is off) but through the user's own tracing.
  const spans = h.spans().filter((s) => s.instrumentationScope.name !== tracingScope);
  expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain('schema lock');
}

/**
 * An agent asked to continue after each answer, as far as the script goes:
 * `answer` sends the conversation so far and resolves to it with the
 * model's answer added. Runs inside `h.guard.run` with the scenario's
 * budget; resolves to the error the run ended with, if any.
 */
export function keepAsking(h: Harness, scenario: Scenario, answer: (messages: unknown[]) => Promise<unknown[]>): Promise<unknown> {
  return h.guard
    .run(
      'writer',
      async () => {
        let messages: unknown[] = [{ role: 'user', content: 'Write the report.' }];
        for (let i = 0; i < scenario.turns.length; i++) messages = [...(await answer(messages)), { role: 'user', content: 'continue' }];
      },
      { maxOutputTokens: scenario.budget },
    )
    .then(() => undefined, (e: unknown) => e);
}

/** A framework's side of the acceptance tests: a fresh harness whose guard the adapter uses, and its continuation loop. */
export interface ModelTurnDriver {
  h: Harness;
  events: LoopEvent[];
  /** Runs the scenario's continuation loop inside `h.guard.run` (with the scenario's budget) with the framework's own mock model. */
  drive: (scenario: Scenario) => Promise<Driven>;
  /** The instrumentation scope of a tracing integration that records the response text on its spans (the user's choice). */
  tracingScope?: string;
}

/** The acceptance tests of model turns, the same for every framework (declare inside its `describe`). */
export function modelTurnAcceptance(start: () => ModelTurnDriver): void {
  it('a model that keeps writing is told at 90 % in its next model call and stopped at the budget', async () => {
    const { h, drive } = start();
    expectKeepsWritingStoppedAtBudget(h, await drive(SCENARIOS.keepsWriting));
  });

  it('diminishing returns stop the run', async () => {
    const { h, drive } = start();
    expectDiminishingStopped(h, await drive(SCENARIOS.diminishing));
  });

  it('three truncations in a row stop the run; the recovery message reaches the next model call', async () => {
    const { h, drive } = start();
    expectTruncationStopped(h, await drive(SCENARIOS.truncated));
  });

  it('a single truncation recovered does not stop the run', async () => {
    const { h, drive } = start();
    expectTruncationRecovered(h, await drive(SCENARIOS.truncatedOnce));
  });

  it('a model repeating its answer is nudged in its next model call; onLoop is told', async () => {
    const { h, events, drive, tracingScope } = start();
    expectRepeatingNudged(h, events, await drive(SCENARIOS.repeating), tracingScope);
  });
}
