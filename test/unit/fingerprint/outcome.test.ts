import { describe, expect, it } from 'vitest';
import { classifyResult, parseMaybeJson } from '../../../src/fingerprint/index.js';
import type { Outcome } from '../../../src/types.js';

describe('classifyResult', () => {
  const table: [string, unknown, Outcome][] = [
    // empty
    ['null', null, 'empty'],
    ['undefined', undefined, 'empty'],
    ['empty array', [], 'empty'],
    ['empty object', {}, 'empty'],
    ['empty string', '', 'empty'],
    ['whitespace string', ' \n ', 'empty'],
    ['empty Map', new Map(), 'empty'],
    ['empty Set', new Set(), 'empty'],
    ['empty buffer', Buffer.alloc(0), 'empty'],
    ['{hits: []}', { hits: [] }, 'empty'],
    ['{results: [], total: 0}', { results: [], total: 0 }, 'empty'],
    ['query echo with no results', { query: 'x', results: [], next_cursor: null }, 'empty'],
    ['message with no results', { message: 'No results found', items: [] }, 'empty'],
    ['nested empty wrapper', { data: { items: [], count: 0 } }, 'empty'],
    ['{result: null}', { result: null }, 'empty'],
    ['{error: null, results: []}', { error: null, results: [] }, 'empty'],
    ['status not_found', { status: 'not_found' }, 'empty'],
    ['status "Not Found"', { status: 'Not Found' }, 'empty'],
    ['state none', { state: 'none' }, 'empty'],
    ['status no_results', { status: 'no_results', query: 'q' }, 'empty'],
    ['HTTP 204', { status: 204 }, 'empty'],
    ['JSON text of an empty list', '[]', 'empty'],
    ['JSON text {"hits": []}', ' {"hits": []} ', 'empty'],
    ['MCP result with empty text', { content: [{ type: 'text', text: '' }] }, 'empty'],
    ['MCP result whose text is an empty JSON list', { content: [{ type: 'text', text: '{"results": []}' }] }, 'empty'],
    // pending
    ['status pending', { status: 'pending', job_id: 'job-701', eta_s: 300 }, 'pending'],
    ['status queued', { status: 'queued' }, 'pending'],
    ['status in_progress', { status: 'in_progress' }, 'pending'],
    ['status "In Progress"', { status: 'In Progress' }, 'pending'],
    ['state IN-PROGRESS', { state: 'IN-PROGRESS' }, 'pending'],
    ['status accepted', { status: 'accepted' }, 'pending'],
    ['state processing', { state: 'processing' }, 'pending'],
    ['state running', { state: 'running' }, 'pending'],
    ['HTTP 202', { statusCode: 202, body: 'queued' }, 'pending'],
    // error (in-band)
    ['status 429 number', { status: 429, body: 'slow down' }, 'error'],
    ['status_code 503 numeric string', { status_code: '503' }, 'error'],
    ['statusCode 404', { statusCode: 404 }, 'error'],
    ['http_status 500', { http_status: 500, data: [1] }, 'error'],
    ['non-empty error string', { error: 'rate limited' }, 'error'],
    ['non-empty error object', { error: { code: 'E1' } }, 'error'],
    ['error: true', { error: true }, 'error'],
    ['ok: false with a message', { ok: false, message: 'quota exceeded' }, 'error'],
    ['success: false with a message', { success: false, message: 'denied' }, 'error'],
    ['JSend status error', { status: 'error', message: 'boom' }, 'error'],
    ['MCP isError', { content: [{ type: 'text', text: 'failed' }], isError: true }, 'error'],
    ['JSON text with an error', '{"error": "unauthorized"}', 'error'],
    ['MCP text holding an in-band 503', { content: [{ type: 'text', text: '{"status": 503}' }] }, 'error'],
    // ok
    ['failing test run: exit_code 1 is a result', { exit_code: 1, summary: '5 failed, 20 passed' }, 'ok'],
    ['quiet success: exit 0 with empty stdout', { exit_code: 0, stdout: '' }, 'ok'],
    ['empty file content', { content: '' }, 'ok'],
    ['status 200 with data', { status: 200, orders: [{ id: 'A-1' }] }, 'ok'],
    ['status "ok" alone', { status: 'ok' }, 'ok'],
    ['ok: true', { ok: true }, 'ok'],
    ['ok: false without error or message', { ok: false }, 'ok'],
    ['error: null', { error: null, value: 3 }, 'ok'],
    ['error: ""', { error: '', value: 3 }, 'ok'],
    ['error: []', { error: [], value: 3 }, 'ok'],
    ['service start-up states', { state: 'MIGRATING' }, 'ok'],
    ['job failed is a state, not a failed call', { status: 'failed', job_id: 'j' }, 'ok'],
    ['zero', 0, 'ok'],
    ['false', false, 'ok'],
    ['plain text', 'Flights to Tokyo from 540 USD', 'ok'],
    ['plain text that looks like JSON but is not', '{not json}', 'ok'],
    ['non-empty list', [{ a: 1 }], 'ok'],
    ['list of empties is still a list', [[], []], 'ok'],
    ['status 1000 is not HTTP', { status: 1000 }, 'ok'],
    ['status "200"', { status: '200', data: 'x' }, 'ok'],
    ['written 0 bytes', { written: 0 }, 'ok'],
    ['MCP result with text', { content: [{ type: 'text', text: 'hello' }] }, 'ok'],
    ['MCP result with an image', { content: [{ type: 'image', data: 'AAA', mimeType: 'image/png' }] }, 'ok'],
    ['class instance', new (class Job { id = 1; })(), 'ok'],
  ];
  it.each(table)('%s -> %s', (_name, result, expected) => {
    expect(classifyResult(result)).toBe(expected);
  });

  it('never throws', () => {
    const hostile = Object.defineProperty({}, 'status', {
      enumerable: true,
      get() {
        throw new Error('no');
      },
    });
    expect(classifyResult(hostile)).toBe('ok');
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(classifyResult(proxy)).toBe('ok');
  });
});

describe('parseMaybeJson', () => {
  it.each([
    ['{"a": 1}', { a: 1 }],
    ['  [1, 2]\n', [1, 2]],
    ['{"a": [}', '{"a": [}'],
    ['plain text', 'plain text'],
    ['42', '42'],
    ['true', 'true'],
    ['null', 'null'],
    ['"quoted"', '"quoted"'],
    ['', ''],
    ['{', '{'],
    ['[1, 2] trailing', '[1, 2] trailing'],
  ] as [string, unknown][])('%j', (text, expected) => {
    expect(parseMaybeJson(text)).toEqual(expected);
  });

  it('never throws, whatever it is given', () => {
    expect(parseMaybeJson(undefined as unknown as string)).toBeUndefined();
    expect(parseMaybeJson(12 as unknown as string)).toBe(12);
  });
});
