/**
 * `loopguard scan` and `loopguard eval` on real files of every format they
 * read (test/fixtures/formats, sources in its README): the format is found by
 * content, each run is read as its log records it, unlabelled runs stay out of
 * the scored summary, and a malformed file exits 2 naming file, place and field.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { FORMATS } from '../../src/eval/formats/index.js';
import type { CommandIO } from '../../src/cli/io.js';

const run = promisify(execFile);
const repoRoot = resolve(import.meta.dirname, '../..');
const fixtures = resolve(repoRoot, 'test/fixtures/formats');
const malformed = join(fixtures, 'malformed');
const bin = resolve(repoRoot, 'dist/src/cli/bin.js');

interface Verdict {
  step: number;
  level: string;
  detector: string;
  count: number;
  period: number;
  tool: string;
}
interface ScannedRun {
  id: string;
  steps: number;
  firstWarning: number | null;
  firstCritical: number | null;
  firstBreak: number | null;
  detectors: string[];
  verdicts: Verdict[];
}
interface ScanOut {
  files: { file: string; format: string; runs: ScannedRun[] }[];
}

function capture(): CommandIO & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (l) => stdout.push(l), err: (l) => stderr.push(l) };
}

async function scanJson(...files: string[]): Promise<ScanOut> {
  const io = capture();
  const code = await main(['scan', ...files, '--json'], io);
  expect(io.stderr).toEqual([]);
  expect(code).toBe(0);
  expect(io.stdout).toHaveLength(1);
  return JSON.parse(io.stdout[0]!) as ScanOut;
}

const json = (name: string): unknown => JSON.parse(readFileSync(join(fixtures, name), 'utf8'));
const lines = (name: string): Record<string, unknown>[] =>
  readFileSync(join(fixtures, name), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

type Msg = { role: string; content: unknown; tool_calls?: unknown[] };

/** What each fixture is, and how many steps its runs have, counted from the file by the format's own rules. */
const EXPECTED: Record<string, { format: string; steps: () => Record<string, number> }> = {
  'tau-bench-airline.json': {
    format: 'tau-bench',
    // Every tool call is a step, and every assistant message to the user (tau-bench's `respond`).
    steps: () =>
      Object.fromEntries(
        (json('tau-bench-airline.json') as { task_id: number; trial: number; traj: Msg[] }[]).map((e) => [
          `task-${e.task_id}-trial-${e.trial}`,
          e.traj.filter((m) => m.role === 'assistant').reduce((n, m) => n + Math.max(1, m.tool_calls?.length ?? 0), 0),
        ]),
      ),
  },
  'github_issue.traj.json': {
    format: 'mini-swe-agent',
    // Every assistant message with a command block that got an answer.
    steps: () => ({
      github_issue: (json('github_issue.traj.json') as Msg[]).filter((m, i, all) => m.role === 'assistant' && /```mswea_bash_command/.test(String(m.content)) && all[i + 1] !== undefined).length,
    }),
  },
  'pvlib__pvlib-python-1072.traj.json': {
    format: 'mini-swe-agent',
    // Tool-calling config: one tool message answers each command.
    steps: () => {
      const doc = json('pvlib__pvlib-python-1072.traj.json') as { instance_id: string; messages: Msg[] };
      return { [doc.instance_id]: doc.messages.filter((m) => m.role === 'tool').length };
    },
  },
  'pydicom__pydicom-1458.traj': {
    format: 'swe-agent',
    steps: () => ({ 'pydicom__pydicom-1458': (json('pydicom__pydicom-1458.traj') as { trajectory: unknown[] }).trajectory.length }),
  },
  'openhands-events.json': {
    format: 'openhands',
    // Tool-call actions (they carry tool_call_metadata) plus error observations that answer no action.
    steps: () => ({
      'openhands-events': (json('openhands-events.json') as Record<string, unknown>[]).filter((e) => e.tool_call_metadata !== undefined && 'action' in e || (e.observation === 'error' && e.cause === undefined)).length,
    }),
  },
  'openhands-output.jsonl': {
    format: 'openhands',
    steps: () =>
      Object.fromEntries(
        lines('openhands-output.jsonl').map((l, i) => [
          `openhands-output-${i + 1}`,
          // Actions that ran something: not the user's message, not `finish` (it ends the run).
          (l.history as Record<string, unknown>[]).filter((e) => typeof e.action === 'string' && !['message', 'finish'].includes(e.action)).length,
        ]),
      ),
  },
  'openai-chat.json': {
    format: 'openai',
    // Every tool call a tool message answers (by tool_call_id).
    steps: () => {
      const messages = (json('openai-chat.json') as { messages: (Msg & { tool_call_id?: string })[] }).messages;
      const answered = new Set(messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id));
      return { 'openai-chat': messages.flatMap((m) => (m.tool_calls ?? []) as { id: string }[]).filter((c) => answered.has(c.id)).length };
    },
  },
  'openai-responses.jsonl': {
    format: 'openai',
    // Every function_call item a function_call_output answers (by call_id); the Response's id names the run.
    steps: () =>
      Object.fromEntries(
        lines('openai-responses.jsonl').map((l) => {
          const response = l.response as { id: string; output: { type: string; call_id?: string }[] };
          const answered = new Set(response.output.filter((o) => o.type === 'function_call_output').map((o) => o.call_id));
          return [response.id, response.output.filter((o) => o.type === 'function_call' && answered.has(o.call_id)).length];
        }),
      ),
  },
  'anthropic-messages.json': {
    format: 'anthropic',
    // Every tool_use block a tool_result block answers (by tool_use_id).
    steps: () => {
      type Block = { type: string; id?: string; tool_use_id?: string };
      const blocks = (json('anthropic-messages.json') as { messages: { content: Block[] | string }[] }).messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
      const answered = new Set(blocks.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id));
      return { 'anthropic-messages': blocks.filter((b) => b.type === 'tool_use' && answered.has(b.id)).length };
    },
  },
  'claude-code-session.jsonl': {
    format: 'anthropic',
    // One run a session; its steps are the main agent's tool_use blocks that a tool_result answers.
    steps: () => {
      type Block = { type: string; id?: string; tool_use_id?: string };
      const records = lines('claude-code-session.jsonl').filter((l) => typeof l.message === 'object' && l.isSidechain !== true);
      const runs: Record<string, number> = {};
      for (const session of new Set(records.map((l) => l.sessionId as string))) {
        const blocks = records.filter((l) => l.sessionId === session).flatMap((l) => ((l.message as { content: unknown }).content instanceof Array ? (l.message as { content: Block[] }).content : []));
        const answered = new Set(blocks.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id));
        runs[session] = blocks.filter((b) => b.type === 'tool_use' && answered.has(b.id)).length;
      }
      return runs;
    },
  },
  'otlp.jsonl': { format: 'otlp-json', steps: () => traceRuns() },
  'jaeger.json': { format: 'jaeger-json', steps: () => traceRuns() },
};

/** The runs the trace fixtures hold, by the generator (generate-traces.ts): two traces share a conversation id. */
function traceRuns(): Record<string, number> {
  const tools = new Map<string, number>();
  const keys = new Map<string, string>();
  for (const line of lines('otlp.jsonl')) {
    for (const rs of line.resourceSpans as { scopeSpans: { spans: { traceId: string; name: string; attributes: { key: string; value: { stringValue?: string } }[] }[] }[] }[]) {
      for (const s of rs.scopeSpans.flatMap((ss) => ss.spans)) {
        const conversation = s.attributes.find((a) => a.key === 'gen_ai.conversation.id')?.value.stringValue;
        if (conversation !== undefined) keys.set(s.traceId, conversation);
        if (s.name.startsWith('execute_tool ')) tools.set(s.traceId, (tools.get(s.traceId) ?? 0) + 1);
      }
    }
  }
  const runs: Record<string, number> = {};
  for (const [trace, n] of tools) {
    const key = keys.get(trace) ?? trace;
    runs[key] = (runs[key] ?? 0) + n;
  }
  return runs;
}

describe('loopguard scan reads every format, by content', () => {
  it('has an expectation for every fixture, and a fixture for every expectation', () => {
    const files = readdirSync(fixtures).filter((f) => !f.endsWith('.ts') && !f.endsWith('.md') && f !== 'malformed');
    expect(files.sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const [name, { format, steps }] of Object.entries(EXPECTED)) {
    it(`${name}: ${format}, its runs and steps as the file records them`, async () => {
      const out = await scanJson(join(fixtures, name));
      expect(out.files).toHaveLength(1);
      expect(out.files[0]!.format).toBe(format);
      const found = Object.fromEntries(out.files[0]!.runs.map((r) => [r.id, r.steps]));
      expect(found).toEqual(steps());
      for (const r of out.files[0]!.runs) {
        expect(r.detectors).toEqual([...new Set(r.verdicts.map((v) => v.detector))].sort());
        expect(r.verdicts.length > 0).toBe(r.firstWarning !== null);
      }
    });
  }

  it('recognises a file by its content, not its name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-formats-'));
    const renamed = join(dir, 'trace-export.txt');
    copyFileSync(join(fixtures, 'jaeger.json'), renamed);
    const [a, b] = await Promise.all([scanJson(renamed), scanJson(join(fixtures, 'jaeger.json'))]);
    expect(a.files[0]!.format).toBe('jaeger-json');
    expect(a.files[0]!.runs).toEqual(b.files[0]!.runs);
  });

  it('reads several files in one scan, in the order given', async () => {
    const out = await scanJson(join(fixtures, 'otlp.jsonl'), join(fixtures, 'github_issue.traj.json'));
    expect(out.files.map((f) => f.format)).toEqual(['otlp-json', 'mini-swe-agent']);
  });
});

describe('trace files: tool spans read through the dialect readers, runs keyed as the collector keys them', () => {
  let otlp: ScannedRun[];
  let jaeger: ScannedRun[];
  beforeAll(async () => {
    otlp = (await scanJson(join(fixtures, 'otlp.jsonl'))).files[0]!.runs;
    jaeger = (await scanJson(join(fixtures, 'jaeger.json'))).files[0]!.runs;
  });

  it('joins the traces of one conversation id into one run', () => {
    expect(otlp.find((r) => r.id === 'conv-acme-17')?.steps).toBe(6);
  });

  it('flags the repeated empty search and the repeated 404 (content captured, and hashes only), not the normal run', () => {
    const search = otlp.find((r) => r.id === 'conv-acme-17')!;
    expect(search.firstWarning).not.toBeNull();
    expect(search.verdicts.every((v) => v.tool === 'search_orders' && v.count >= 3 && v.period === 1)).toBe(true);
    const invoice = otlp.find((r) => r.verdicts.some((v) => v.tool === 'fetch_invoice'));
    expect(invoice?.steps).toBe(10);
    const normal = otlp.filter((r) => r !== search && r !== invoice);
    expect(normal.map((r) => [r.steps, r.firstWarning])).toEqual([[5, null]]);
  });

  it('gives the same runs and verdicts from Jaeger JSON as from OTLP/JSON of the same spans', () => {
    expect(jaeger).toEqual(otlp);
  });
});

describe('loopguard eval on formats without labels', () => {
  it('lists every run with label null and its verdicts, and scores none of them', async () => {
    const io = capture();
    expect(await main(['eval', join(fixtures, 'otlp.jsonl'), '--json'], io)).toBe(0);
    const out = JSON.parse(io.stdout[0]!) as { cases: (ScannedRun & { label: null; verdict: null })[]; summary: { cases: number; tp: number; fp: number } };
    expect(out.cases).toHaveLength(3);
    for (const c of out.cases) {
      expect(c.label).toBeNull();
      expect(c.verdict).toBeNull();
      expect(Array.isArray(c.verdicts)).toBe(true);
    }
    expect(out.cases.some((c) => c.firstWarning !== null)).toBe(true);
    expect(out.summary).toMatchObject({ cases: 0, tp: 0, fp: 0 });
  });

  for (const name of Object.keys(EXPECTED)) {
    it(`${name}: exit 0, a table naming the unscored cases`, async () => {
      const io = capture();
      expect(await main(['eval', join(fixtures, name)], io)).toBe(0);
      const text = io.stdout.join('\n');
      expect(text).toMatch(/^cases 0 /m);
      expect(text).toMatch(/unlabelled cases? listed above, not scored/);
    });
  }
});

describe('a malformed file exits 2 naming the file, the line or JSON path, and the field', () => {
  const cases: Record<string, { line?: number; field: string }> = {
    'otlp-bad-trace-id.jsonl': { line: 2, field: 'resourceSpans[0].scopeSpans[0].spans[0].traceId' },
    'otlp-no-resource-spans.jsonl': { line: 3, field: 'resourceSpans' },
    'jaeger-bad-start-time.json': { field: 'data[0].spans[1].startTime' },
    'jaeger-broken-json.json': { line: 5, field: '(document)' },
    'openhands-history-not-array.jsonl': { line: 2, field: 'history' },
    'openhands-event-not-object.json': { field: '[1]' },
    'swe-agent-action-not-string.traj': { field: 'trajectory[1].action' },
    'mini-swe-agent-no-role.traj.json': { field: 'messages[1].role' },
    'tau-bench-no-tool-name.json': { field: '[0].traj[1].tool_calls[0].function.name' },
    'openai-chat-no-function-name.json': { field: 'messages[1].tool_calls[0].function.name' },
    'openai-responses-call-not-object.jsonl': { line: 2, field: 'response.output[1]' },
    'anthropic-no-tool-name.json': { field: 'messages[1].content[0].name' },
    'claude-code-no-session-id.jsonl': { line: 3, field: 'sessionId' },
    'unknown-format.json': { field: '(document)' },
  };

  it('has a fixture for every case checked here, and nothing unchecked', () => {
    expect(readdirSync(malformed).sort()).toEqual(Object.keys(cases).sort());
  });

  for (const [file, { line, field }] of Object.entries(cases)) {
    it(`${file}: ${line === undefined ? '' : `line ${line}, `}field ${field}`, async () => {
      for (const command of ['scan', 'eval']) {
        for (const flags of [['--json'], []]) {
          const io = capture();
          expect(await main([command, join(malformed, file), ...flags], io)).toBe(2);
          expect(io.stdout).toEqual([]);
          const message = io.stderr.join('\n');
          expect(message).toContain(`loopguard ${command}: ${join(malformed, file)}: `);
          if (line !== undefined) expect(message).toMatch(new RegExp(`: line ${line}: `));
          expect(message).toContain(`field "${field}"`);
        }
      }
    });
  }

  it('a file no format fits names every format it expected', async () => {
    const io = capture();
    await main(['scan', join(malformed, 'unknown-format.json')], io);
    const message = io.stderr.join('\n');
    for (const format of ['OTLP/JSON', 'Jaeger JSON', 'OpenHands', 'SWE-agent', 'mini-SWE-agent', 'tau-bench', 'benchmark']) expect(message).toContain(format);
    expect(message).toContain('"events"');
  });

  it('scan fails as a whole when any one file is unreadable, and prints no partial result', async () => {
    const io = capture();
    expect(await main(['scan', join(fixtures, 'otlp.jsonl'), join(malformed, 'no-such-file.json')], io)).toBe(2);
    expect(io.stdout).toEqual([]);
    expect(io.stderr.join('\n')).toContain('no-such-file.json');
  });

  it('scan without a file is a usage error', async () => {
    const io = capture();
    expect(await main(['scan', '--json'], io)).toBe(2);
    expect(io.stderr.join('\n')).toMatch(/scan needs at least one FILE/);
  });

  it('the usage names every format the readers recognise', async () => {
    const named: Record<string, RegExp> = {
      benchmark: /benchmark JSONL/,
      'otlp-json': /OTLP\/JSON/,
      'jaeger-json': /Jaeger JSON/,
      'tau-bench': /tau-bench/,
      openhands: /OpenHands/,
      'swe-agent': /SWE-agent \.traj/,
      openai: /OpenAI transcripts/,
      anthropic: /Anthropic transcripts/,
      'mini-swe-agent': /mini-SWE-agent/,
    };
    const io = capture();
    expect(await main(['scan', '--no-such-option'], io)).toBe(2);
    const usage = io.stderr.join('\n').replace(/\s+/g, ' ');
    for (const format of FORMATS) expect(usage, format.name).toMatch(named[format.name] ?? /(?!)/);
  });

  it('scan takes the same --preset as eval, and rejects an unknown one', async () => {
    const io = capture();
    expect(await main(['scan', join(fixtures, 'otlp.jsonl'), '--preset', 'nope'], io)).toBe(2);
    expect(io.stderr.join('\n')).toMatch(/preset/);
  });
});

/** The built bin, as users run it (skipped when the tree does not build, as in eval-cli.test.ts). */
describe('the built bin: node dist/src/cli/bin.js scan', () => {
  let built = false;
  beforeAll(async () => {
    try {
      await run('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: repoRoot, timeout: 300_000 });
      built = existsSync(bin);
    } catch (err) {
      console.warn(`loopguard scan bin checks skipped: the build did not succeed\n${String((err as { stdout?: string }).stdout ?? err).slice(0, 2000)}`);
    }
  }, 320_000);

  it('prints the same JSON as main() and exits 0', async (ctx) => {
    if (!built) ctx.skip();
    const files = Object.keys(EXPECTED).map((f) => join(fixtures, f));
    const { stdout, stderr } = await run(process.execPath, [bin, 'scan', ...files, '--json'], { cwd: repoRoot, timeout: 120_000 });
    expect(stderr).toBe('');
    expect(JSON.parse(stdout)).toEqual(await scanJson(...files));
  }, 240_000);

  it('exits 2 naming the file, line and field of a malformed one', async (ctx) => {
    if (!built) ctx.skip();
    const file = join(malformed, 'otlp-bad-trace-id.jsonl');
    const err = await run(process.execPath, [bin, 'eval', file], { cwd: repoRoot }).then(
      () => undefined,
      (e: { code?: number; stdout?: string; stderr?: string }) => e,
    );
    expect(err?.code).toBe(2);
    expect(err?.stdout).toBe('');
    expect(err?.stderr).toContain(`${file}: line 2: field "resourceSpans[0].scopeSpans[0].spans[0].traceId"`);
  }, 60_000);
});
