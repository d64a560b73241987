import type { ToolStep } from '../../../../src/eval/corpus.js';
import { describe, expect, it } from 'vitest';
import { CorpusError } from '../../../../src/eval/corpus.js';
import { FormatError, FORMATS, readRuns } from '../../../../src/eval/formats/index.js';

const event = (id: number, fields: Record<string, unknown>) => ({ id, source: 'agent', timestamp: `2025-04-30T16:33:0${id}.000000`, ...fields });

describe('readRuns: one registry, formats told apart by content', () => {
  it('names every format once', () => {
    const names = FORMATS.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('tells a SWE-agent history (role messages) from an OpenHands history (events)', () => {
    const swe = { history: [{ role: 'assistant', content: 'ls', action: 'ls\n' }, { role: 'user', content: 'README.md' }] };
    const oh = { instance_id: 'i-1', history: [event(1, { action: 'run', args: { command: 'ls' } }), event(2, { observation: 'run', cause: 1, content: 'README.md', extras: { metadata: { exit_code: 0 } } })] };
    expect(readRuns('a', JSON.stringify(swe)).format).toBe('swe-agent');
    const r = readRuns('b', JSON.stringify(oh));
    expect(r.format).toBe('openhands');
    expect(r.runs[0]!.id).toBe('i-1');
    expect((r.runs[0]!.steps as ToolStep[]).map((s) => [s.tool, s.args, s.result, s.status, s.t, s.durationMs])).toEqual([['run', { command: 'ls' }, 'README.md', 'ok', 0, 1000]]);
  });

  it("reads the OpenHands server's trajectory answer ({trajectory:[events]}), not as a SWE-agent trajectory", () => {
    const events = [event(1, { action: 'run', args: { command: 'grep -rn x src' } }), event(2, { observation: 'run', cause: 1, content: '', extras: { metadata: { exit_code: 1 } } })];
    const r = readRuns('t', JSON.stringify({ trajectory: events }));
    expect(r.format).toBe('openhands');
    expect((r.runs[0]!.steps as ToolStep[]).map((s) => [s.tool, s.status])).toEqual([['run', 'empty']]);
    expect(readRuns('s', JSON.stringify({ trajectory: [{ action: 'ls\n', observation: 'a.py', thought: '' }] })).format).toBe('swe-agent');
  });

  it('tells tau-bench results from a bare message list', () => {
    const tau = [{ task_id: 3, trial: 1, traj: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c', function: { name: 'search_flights', arguments: '{"from":"JFK"}' } }] }, { role: 'tool', content: '[]' }] }];
    const r = readRuns('t.json', JSON.stringify(tau));
    expect(r.format).toBe('tau-bench');
    expect((r.runs[0]!.steps as ToolStep[]).map((s) => [s.tool, s.args, s.status])).toEqual([['search_flights', { from: 'JFK' }, 'empty']]);
    const mini = [{ role: 'assistant', content: 'THOUGHT\n```bash\nls -la\n```' }, { role: 'user', content: '<returncode>0</returncode>\n<output>\nREADME.md\n</output>' }];
    expect((readRuns('m', JSON.stringify(mini)).runs[0]!.steps as ToolStep[]).map((s) => [s.tool, s.args, s.result])).toEqual([['bash', { command: 'ls -la' }, 'README.md\n']]);
  });

  it('a mini-SWE-agent response with two command blocks ran nothing (the agent answered with a format error)', () => {
    const mini = [
      { role: 'assistant', content: '```bash\nls\n```\nand\n```bash\npwd\n```' },
      { role: 'user', content: 'Please always provide EXACTLY ONE action in triple backticks, found 2 actions.' },
      { role: 'assistant', content: '```bash\nls\n```' },
      { role: 'user', content: '<returncode>0</returncode>\n<output>\na.py\n</output>' },
    ];
    expect((readRuns('m', JSON.stringify(mini)).runs[0]!.steps as ToolStep[]).map((s) => [s.args, s.result])).toEqual([[{ command: 'ls' }, 'a.py\n']]);
  });

  it('reads a tool-calling mini-SWE-agent trajectory ({"returncode","output"} observations)', () => {
    const traj = {
      trajectory_format: 'mini-swe-agent-1.1',
      info: { instance_id: 'x__y-1' },
      messages: [
        { role: 'assistant', content: '', tool_calls: [{ id: 'a', function: { name: 'bash', arguments: '{"command":"python t.py"}' } }] },
        { role: 'tool', content: '{"returncode": 1, "output": "Traceback (most recent call last):\\nKeyError: 1"}' },
      ],
    };
    const r = readRuns('m', JSON.stringify(traj));
    expect(r.runs[0]!.id).toBe('x__y-1');
    expect((r.runs[0]!.steps as ToolStep[]).map((s) => [s.args, s.status])).toEqual([[{ command: 'python t.py' }, 'error']]);
  });

  it('reads an OpenAI chat transcript: each answered tool call a step, matched by tool_call_id, parallel calls in order', () => {
    const body = {
      model: 'gpt-4.1',
      messages: [
        { role: 'user', content: 'Find the failing test' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'grep_repo', arguments: '{"pattern":"test_parse"}' } },
            { id: 'c2', type: 'function', function: { name: 'shell', arguments: '{"command":"pytest -x"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c2', content: '{"exit_code": 1, "output": "1 failed"}' },
        { role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: '[]' }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c3', type: 'function', function: { name: 'shell', arguments: '{"command":"ls"}' } }] },
      ],
    };
    const r = readRuns('chat', JSON.stringify(body));
    expect(r.format).toBe('openai');
    // The last call was never answered: the run stopped before it did anything.
    expect((r.runs[0]!.steps as ToolStep[]).map((s) => [s.tool, s.args, s.status])).toEqual([
      ['grep_repo', { pattern: 'test_parse' }, 'empty'],
      ['shell', { command: 'pytest -x' }, 'error'],
    ]);
  });

  it('reads OpenAI Responses items: bare (to_input_list), or a Response whose id names the run', () => {
    const items = [
      { type: 'message', role: 'user', content: 'What is the weather in Paris?' },
      { type: 'function_call', call_id: 'f1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'f1', output: 'Sunny, 22C' },
    ];
    const bare = readRuns('items', JSON.stringify(items));
    expect(bare.format).toBe('openai');
    expect((bare.runs[0]!.steps as ToolStep[]).map((s) => [s.tool, s.args, s.result, s.status])).toEqual([['get_weather', { city: 'Paris' }, 'Sunny, 22C', 'ok']]);
    const response = { id: 'resp_1', object: 'response', output: items.slice(1) };
    const r = readRuns('r', JSON.stringify({ response, reward: 0 }));
    expect(r.runs.map((run) => [run.id, run.steps.length])).toEqual([['resp_1', 1]]);
  });

  it('leaves a mini-SWE-agent tool-calling list to its reader, known by its <returncode> observations', () => {
    const mini = [
      { role: 'assistant', content: '', tool_calls: [{ id: 'a', function: { name: 'bash', arguments: '{"command":"ls"}' } }] },
      { role: 'tool', tool_call_id: 'a', content: '<returncode>0</returncode>\n<output>\na.py\n</output>' },
    ];
    const r = readRuns('m', JSON.stringify(mini));
    expect(r.format).toBe('mini-swe-agent');
    expect((r.runs[0]!.steps as ToolStep[]).map((s) => [s.args, s.result])).toEqual([[{ command: 'ls' }, 'a.py\n']]);
  });

  it('reads an Anthropic Messages transcript: tool_use blocks answered by tool_result blocks, is_error a failure', () => {
    const body = {
      model: 'claude-haiku-4-5',
      messages: [
        { role: 'user', content: 'Refund order 123' },
        { role: 'assistant', content: [{ type: 'text', text: 'Looking it up' }, { type: 'tool_use', id: 't1', name: 'get_order', input: { id: '123' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'order 123 not found' }], is_error: true }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'get_order', input: { id: '123' } }] },
      ],
    };
    const r = readRuns('a', JSON.stringify(body));
    expect(r.format).toBe('anthropic');
    expect((r.runs[0]!.steps as ToolStep[]).map((s) => [s.tool, s.args, s.status, s.error])).toEqual([['get_order', { id: '123' }, 'error', 'order 123 not found']]);
  });

  it('reads a Claude Code session file: one run a session, times from the records, sub-agents left out', () => {
    const line = (fields: Record<string, unknown>) => JSON.stringify({ sessionId: 's-1', uuid: 'u', ...fields });
    const file = [
      JSON.stringify({ type: 'summary', summary: 'Earlier work', leafUuid: 'l-0' }),
      line({ type: 'assistant', timestamp: '2025-10-01T10:00:00.000Z', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'Bash', input: { command: 'npm test' } }] } }),
      line({ type: 'assistant', isSidechain: true, timestamp: '2025-10-01T10:00:01.000Z', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'b', name: 'Read', input: { file_path: 'x' } }] } }),
      line({ type: 'user', isSidechain: true, timestamp: '2025-10-01T10:00:01.500Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'b', content: 'x' }] } }),
      line({ type: 'user', timestamp: '2025-10-01T10:00:04.000Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: '12 passing' }] } }),
      line({ type: 'assistant', timestamp: '2025-10-01T10:00:09.000Z', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'c', name: 'Bash', input: { command: 'npm test' } }] } }),
      line({ type: 'user', timestamp: '2025-10-01T10:00:12.000Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c', content: '12 passing' }] } }),
    ].join('\n');
    const r = readRuns('session.jsonl', file);
    expect(r.format).toBe('anthropic');
    expect(r.runs.map((run) => run.id)).toEqual(['s-1']);
    expect((r.runs[0]!.steps as ToolStep[]).map((s) => [s.tool, s.result, s.t, s.durationMs])).toEqual([
      ['Bash', '12 passing', 0, 4000],
      ['Bash', '12 passing', 9000, 3000],
    ]);
  });

  it('keeps the benchmark corpus error messages exactly as they were', () => {
    expect(() => readRuns('c.jsonl', '{"id":"a","label":"normal","steps":[]}\n{"id":"a","label":"normal","steps":[]}\n')).toThrow(
      new CorpusError(2, 'id', 'must be unique within the file ("a" repeats)'),
    );
    expect(() => readRuns('c.jsonl', 'not json\n')).toThrow(CorpusError);
  });

  it('an empty file is an empty benchmark corpus', () => {
    expect(readRuns('e.jsonl', '\n')).toEqual({ format: 'benchmark', runs: [] });
  });

  it('a value no reader knows fails naming what it found and what was expected', () => {
    expect(() => readRuns('x.json', '[1,2]')).toThrow(FormatError);
    expect(() => readRuns('x.json', '[1,2]')).toThrow(/is a list, not a format loopguard reads/);
  });
});
