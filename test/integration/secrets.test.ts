import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { isLoopGuardVerdictError, type LoopEvent } from '../../instrumentation/index.js';
import { outputTextAttributes } from '../../src/model-span.js';
import { createHarness, type Harness } from '../support/harness.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** Under a key the redaction catches. */
const PASSWORD = 'hunter2-SECRET';
/** Under an ordinary key: content all the same, only exported when capture is on. */
const USER = 'alice-PRIVATE-4711';
const RESULT = 'denied-for-RESULT-9';

/** Every string an exported span carries: name, attributes, status, events and links. */
function exportedText(span: ReadableSpan): string {
  return JSON.stringify({
    name: span.name,
    attributes: span.attributes,
    status: span.status,
    events: span.events.map((e) => ({ name: e.name, attributes: e.attributes })),
    links: span.links.map((l) => l.attributes),
    resource: span.resource.attributes,
  });
}

async function exported(h: Harness): Promise<string> {
  const metrics = await h.metrics();
  return [...h.spans().map(exportedText), JSON.stringify([...metrics])].join('\n');
}

/** A login the agent repeats with the same secret until the breaker stops it: every tier fires on the way. */
async function loopOnLogin(h: Harness): Promise<unknown[]> {
  const login = h.guard.wrapTool('login', async (_args: { user: string; password: string }) => ({ ok: false, reason: RESULT }));
  const errors: unknown[] = [];
  await h.guard
    .run('ticket-42', async () => {
      for (let i = 0; i < 40; i++) {
        try {
          await login({ user: USER, password: PASSWORD });
        } catch (err) {
          errors.push(err);
          if (!isLoopGuardVerdictError(err) || err.level === 'break') throw err;
        }
      }
    })
    .catch((err: unknown) => errors.push(err));
  return errors;
}

describe('no secret leaves the process', () => {
  for (const onBlock of ['result', 'throw'] as const) {
    it(`exports no argument or result with content capture off (onBlock: ${onBlock})`, async () => {
      const levels = new Set<string>();
      h = createHarness({ onBlock, onLoop: (e: LoopEvent) => void levels.add(e.level) });
      const errors = await loopOnLogin(h);
      expect([...levels].sort()).toEqual(['break', 'critical', 'warning']);
      expect(errors.at(-1)).toMatchObject({ name: 'LoopBreakError' });
      const text = await exported(h);
      // The scan reads what it should: the root span's break status is there.
      expect(text).toContain('loopguard break');
      for (const secret of [PASSWORD, USER, RESULT]) expect(text).not.toContain(secret);
      // Errors thrown to user code travel to other instrumentations' spans and logs: they carry no content either.
      for (const err of errors) for (const secret of [PASSWORD, USER]) expect(String((err as Error).message)).not.toContain(secret);
    });
  }

  it('exports content only redacted when capture is on', async () => {
    const levels = new Set<string>();
    h = createHarness({ captureContent: true, onLoop: (e: LoopEvent) => void levels.add(e.level) });
    await loopOnLogin(h);
    expect([...levels].sort()).toEqual(['break', 'critical', 'warning']);
    const text = await exported(h);
    expect(text).toContain(USER);
    expect(text).toContain('[REDACTED]');
    expect(text).not.toContain(PASSWORD);
  });

  it('keeps redacted secrets out of the nudge the model reads', async () => {
    h = createHarness();
    const login = h.guard.wrapTool('login', async (_args: { user: string; password: string }) => 'denied');
    const out: unknown[] = [];
    await h.guard.run('a', async () => {
      for (let i = 0; i < 3; i++) out.push(await login({ user: USER, password: PASSWORD }));
    });
    expect(out[2]).toMatch(/\[loopguard warning\]/);
    expect(out[2]).toContain(USER);
    expect(out[2]).not.toContain(PASSWORD);
  });
});

/** Planted in what the model wrote: its answers and the arguments of a tool call it could not finish. */
const MODEL_SECRET = 'sk-live-MODEL-OUTPUT-0451';

/**
 * A model that chants a passage with a key in it (the text seen in process,
 * as an adapter sees it: only what loopguard computes from it goes on the
 * LLM span), is cut off while writing a tool call carrying the key, and
 * chants again until the run is stopped.
 */
async function chantWithSecret(h: Harness): Promise<unknown[]> {
  const tracer = h.provider.getTracer('llm-client');
  const respond = (finishReason: string, text: string) =>
    tracer
      .startSpan('chat mock-model', {
        attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.output_tokens': 4_096, 'gen_ai.response.finish_reasons': [finishReason], ...outputTextAttributes(text) },
      })
      .end();
  const deploy = h.guard.wrapTool('deploy', (raw: string) => JSON.parse(raw) as unknown);
  const status = h.guard.wrapTool('status', () => 'green');
  const out: unknown[] = [];
  await h.guard
    .run('deployer', async () => {
      respond('stop', `Using the key ${MODEL_SECRET} now. `.repeat(30));
      out.push(await status());
      respond('length', 'Deploying with the stored credentials.');
      out.push(await deploy(`{"env": "prod", "key": "${MODEL_SECRET}", "note": "first the`).catch((e: unknown) => e));
      respond('length', `The key is ${MODEL_SECRET} and I will use it. `.repeat(40));
      out.push(await status());
    })
    .catch((err: unknown) => out.push(err));
  return out;
}

describe('no model output leaves the process', () => {
  it('exports no response text and no cut-off tool arguments with content capture off', async () => {
    h = createHarness();
    const out = await chantWithSecret(h);
    const spans = h.spans();
    // The scan reads what it should: the chanting verdicts and the cut-off call are on the exported spans.
    const llm = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
    expect(llm.map((s) => s.attributes['loopguard.level'])).toEqual(['warning', undefined, 'break']);
    expect(llm[0]!.attributes['loopguard.output.repetition']).toBeGreaterThanOrEqual(29);
    expect(spans.some((s) => s.attributes['loopguard.call.cut_off'] === true)).toBe(true);
    expect(await exported(h)).not.toContain(MODEL_SECRET);
    // What the model reads back (nudges) and the errors thrown to user code do not quote it either.
    for (const o of out) expect(o instanceof Error ? o.message : JSON.stringify(o)).not.toContain(MODEL_SECRET);
  });

  it('exports the cut-off arguments only under content capture (the response text is never written by loopguard)', async () => {
    h = createHarness({ captureContent: true });
    await chantWithSecret(h);
    const cutOff = h.spans().find((s) => s.attributes['loopguard.call.cut_off'] === true)!;
    expect(exportedText(cutOff)).toContain(MODEL_SECRET);
    const llm = h.spans().filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
    for (const span of llm) expect(exportedText(span)).not.toContain(MODEL_SECRET);
  });
});

describe('no model output recorded by an adapter leaves the process', () => {
  /** A long answer restated until it is a repeated answer and cut off until the run stops: every model-side message fires. */
  const ANSWER = `Your account ${USER} was locked after the failed logins; the reset code mailed to you is ${RESULT}, and it expires in ten minutes, so use it soon.`;

  async function repeatUntilStopped(h: Harness): Promise<unknown[]> {
    const broke: unknown[] = [];
    await h.guard.run('chat-7', async () => {
      for (let i = 0; i < 3; i++) await h.guard.recordModelResponse({ outputTokens: 40, finishReason: 'stop', text: ANSWER });
      for (let i = 0; i < 3; i++) broke.push(await h.guard.recordModelResponse({ outputTokens: 40, finishReason: 'length', text: ANSWER }));
    });
    return broke;
  }

  it('exports the response text of no model turn with content capture off, only its sketch', async () => {
    const levels = new Set<string>();
    h = createHarness({ onLoop: (e: LoopEvent) => void levels.add(`${e.detector}:${e.level}`) });
    const broke = await repeatUntilStopped(h);
    expect([...levels].sort()).toEqual(['repeated-answer:warning', 'truncation:break', 'truncation:warning']);
    const text = await exported(h);
    expect(text).toContain('loopguard.output.sketch');
    for (const secret of [USER, RESULT]) expect(text).not.toContain(secret);
    expect(String((broke.at(-1) as Error).message)).not.toContain(USER);
  });

  it('exports the response text only when capture is on', async () => {
    h = createHarness({ captureContent: true });
    await repeatUntilStopped(h);
    expect(await exported(h)).toContain(USER);
  });
});
