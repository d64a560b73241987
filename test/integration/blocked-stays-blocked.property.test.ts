import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LoopBreakError, setToolOutcome, type RegisterOptions } from '../../instrumentation/index.js';
import { createHarness } from '../support/harness.js';

/**
 * An agent insisting on a loop: `call(i)` is the i-th call of its plan, made
 * whatever loopguard answered to the one before (a block, a nudge, a break).
 */
interface Plan {
  family: string;
  options: Omit<RegisterOptions, 'tracerProvider' | 'processor'>;
  call: (i: number) => { tool: string; args: unknown; run: () => unknown };
}

interface Seed {
  word: string;
  salt: number;
}

const returns = (value: unknown) => () => value;
const fails = (message: string) => () => {
  throw new Error(message);
};
const declares = (outcome: 'pending' | 'empty', value: unknown) => () => {
  setToolOutcome(outcome);
  return value;
};

/** The same question asked in other words. */
const REWORDINGS: Array<(w: string) => string> = [
  (w) => `where is the ${w} setting`,
  (w) => `${w} config location`,
  (w) => `which file holds ${w}`,
  (w) => `how do I change ${w}`,
  (w) => `${w}: where to configure it?`,
  (w) => `find the place ${w} is set`,
];

/** One plan per detector family, each looping on the pattern that family reports. */
const PLANS: Array<(s: Seed) => Plan> = [
  (s) => ({ family: 'no-progress', options: {}, call: () => ({ tool: `read_${s.word}`, args: { path: `/etc/${s.word}` }, run: returns(`contents of ${s.word}: ${s.salt}`) }) }),
  (s) => ({
    family: 'semantic-repeat',
    options: { tools: { [`search_${s.word}`]: { ignoreArgs: ['requestId'] } } },
    call: (i) => ({ tool: `search_${s.word}`, args: { q: s.word, requestId: `req-${s.salt}-${i}` }, run: returns({ hits: [`${s.word} manual`, 'faq'] }) }),
  }),
  (s) => ({
    family: 'ping-pong',
    options: {},
    call: (i) =>
      i % 2 === 0
        ? { tool: 'open', args: { file: `${s.word}.ts` }, run: returns(`export const ${s.word} = ${s.salt};`) }
        : { tool: 'lint', args: { file: `${s.word}.ts` }, run: returns({ warnings: [`unused ${s.word}`] }) },
  }),
  (s) => ({
    family: 'cycle',
    options: {},
    call: (i) =>
      [
        { tool: 'list', args: { dir: s.word }, run: returns({ files: ['a', 'b', String(s.salt)] }) },
        { tool: 'stat', args: { file: `${s.word}/a` }, run: returns({ size: s.salt }) },
        { tool: 'read', args: { file: `${s.word}/a` }, run: returns(`line one of ${s.word}`) },
      ][i % 3]!,
  }),
  (s) => ({ family: 'empty-streak', options: {}, call: (i) => ({ tool: 'lookup_order', args: { id: `${s.word}-${s.salt + i}` }, run: returns([]) }) }),
  (s) => ({ family: 'retry-storm', options: {}, call: () => ({ tool: 'deploy', args: { service: s.word }, run: fails(`503 upstream ${s.word} unavailable`) }) }),
  (s) => ({ family: 'failure-repeat', options: {}, call: () => ({ tool: 'create_user', args: { name: s.word }, run: fails(`field "email" is required (${s.word})`) }) }),
  (s) => ({ family: 'same-error', options: {}, call: (i) => ({ tool: 'shell', args: { cmd: `cat /root/${s.word}-${i}` }, run: fails('permission denied') }) }),
  (s) => ({ family: 'pending-resubmit', options: {}, call: () => ({ tool: 'submit_report', args: { topic: s.word }, run: declares('pending', { status: 'queued' }) }) }),
  // Waiting and reworded questions only warn in the balanced preset; the aggressive one blocks them.
  (s) => ({
    family: 'pending-poll',
    options: { preset: 'aggressive' },
    call: () => ({ tool: 'job_status', args: { jobId: `job-${s.salt}` }, run: declares('pending', { status: 'running' }) }),
  }),
  (s) => ({
    family: 'same-answer',
    options: { preset: 'aggressive' },
    call: (i) => ({ tool: 'ask_docs', args: { question: `${['', 'please, ', 'quick question: '][Math.floor(i / REWORDINGS.length) % 3]}${REWORDINGS[i % REWORDINGS.length]!(s.word)}` }, run: returns(`The ${s.word} setting lives in config.yaml, in section ${s.salt} under the "runtime" heading, as a list of names.`) }),
  }),
  (s) => ({
    family: 'repeat',
    options: {},
    call: (i) =>
      i % 2 === 0
        ? { tool: 'status', args: { id: s.word }, run: returns({ state: `state ${(i / 2) % 2} of ${s.word}` }) }
        : { tool: 'think', args: { note: `step ${i}` }, run: returns('ok, noted') },
  }),
  (s) => ({ family: 'budget', options: { maxToolCalls: 20 + (s.salt % 20) }, call: (i) => ({ tool: 'fetch_page', args: { page: i }, run: returns(`page ${i} of ${s.word}: ${s.salt * i}`) }) }),
];

const seed: fc.Arbitrary<Seed> = fc.record({ word: fc.stringMatching(/^[a-z]{3,10}$/), salt: fc.integer({ min: 1, max: 9999 }) });

/** Calls the agent makes after the break, to see nothing runs any more. */
const AFTER_BREAK = 3;
const MAX_CALLS = 60;

async function insist(plan: Plan, prefix: number) {
  const h = createHarness(plan.options);
  const log: Array<'ran' | 'refused' | 'break'> = [];
  try {
    await h.guard.run('agent', async () => {
      // Unrelated work first, so the loop starts anywhere in the window.
      for (let i = 0; i < prefix; i++) await h.guard.callTool(`prepare_${i}`, { step: i }, () => `prepared ${i}`);
      let broken = 0;
      for (let i = 0; i < MAX_CALLS && broken <= AFTER_BREAK; i++) {
        const { tool, args, run } = plan.call(i);
        let ran = false;
        try {
          await h.guard.callTool(tool, args, () => {
            ran = true;
            return run();
          });
          log.push(ran ? 'ran' : 'refused');
        } catch (err) {
          if (err instanceof LoopBreakError) {
            expect(ran && broken > 0).toBe(false);
            log.push('break');
            broken++;
          } else log.push(ran ? 'ran' : 'refused');
        }
      }
    });
    const detectors = h.toolSpans().flatMap((s) => s.events.map((e) => e.attributes?.['loopguard.detector']));
    return { log, detectors };
  } finally {
    await h.close();
  }
}

describe('once a pattern is blocked, insisting never runs the tool again and reaches break', () => {
  for (const make of PLANS) {
    const family = make({ word: 'x', salt: 1 }).family;
    it(family, async () => {
      await fc.assert(
        fc.asyncProperty(seed, fc.integer({ min: 0, max: 12 }), async (s, prefix) => {
          const plan = make(s);
          const { log, detectors } = await insist(plan, prefix);
          expect(detectors).toContain(plan.family);
          const firstRefusal = log.findIndex((o) => o !== 'ran');
          expect(firstRefusal).toBeGreaterThanOrEqual(0);
          expect(log.slice(firstRefusal)).not.toContain('ran');
          expect(log).toContain('break');
        }),
        { numRuns: 15 },
      );
    });
  }
});
