import { describe, expect, it } from 'vitest';
import { fingerprintArgs, readReceipt, resultDigest, RECEIPT_MAX_CHARS } from '../../../src/fingerprint/index.js';

/** What the call builder passes: the masked canonical result text and the canonical argument text. */
const reading = (tool: string, args: unknown, result: unknown) => readReceipt(resultDigest(result).text, tool, fingerprintArgs(args).argsText);
const states = (tool: string, args: unknown, result: unknown): boolean => reading(tool, args, result) === 'states';

describe('readReceipt', () => {
  it('reads a short answer in words the call did not use as a state', () => {
    expect(states('alfworld_act', { action: 'cool lettuce 1 with fridge 1' }, { observation: 'Nothing happens.', won: false })).toBe(true);
    expect(states('search', { q: 'connection pool exhausted' }, { hits: ['kb/pool-sizing: Pool sizing basics'] })).toBe(true);
    expect(states('read_file', { path: 'data/q3.csv' }, 'region,revenue\nnorth,1.2\nsouth,0.9\n')).toBe(true);
  });

  it('reads an answer made of the call’s own words, or their inflections, as a receipt', () => {
    expect(states('browser_scroll', { direction: 'down', amount: 'page' }, 'Scrolled down one page.')).toBe(false);
    expect(states('cms_update_field', { entry_id: 'art-1', field: 'title' }, { status: 'Entry updated.' })).toBe(false);
    expect(states('typeText', { text: 'abc' }, 'Typed abc')).toBe(false);
    expect(states('edit', { path: '/etc/nginx/conf.d/shop.conf' }, 'The file /etc/nginx/conf.d/shop.conf has been edited.')).toBe(false);
  });

  it('reads an answer made of nothing but the call’s own words as its echo', () => {
    expect(reading('cms_update_field', { entry_id: 'art-1', field: 'title' }, { status: 'Entry updated.' })).toBe('echoes');
    expect(reading('browser_scroll', { direction: 'down', amount: 'page' }, 'Scrolled down page.')).toBe('echoes');
    // One word of its own ("successful", "one"), a bare value or a one-token status is no echo.
    expect(reading('transfer_to_human_agents', { summary: 'wants insurance' }, 'Transfer successful')).toBeUndefined();
    expect(reading('browser_scroll', { direction: 'down', amount: 'page' }, 'Scrolled down one page.')).toBeUndefined();
    expect(reading('cms_update_field', { entry_id: 'art-1' }, { status: 'Entry updated.', version: 15 })).toBeUndefined();
    expect(reading('update', {}, { status: 'updated' })).toBeUndefined();
  });

  it('reads bare values as a receipt: one-word strings, numbers, booleans, masked ids', () => {
    expect(states('create_event', { title: 'Onsite' }, { event_id: 'evt_7d0f3b2a91c44e58b6a2', status: 'confirmed' })).toBe(false);
    expect(states('run_sql', { sql: 'UPDATE orders SET x = 1' }, { command: 'UPDATE', rowCount: 50000 })).toBe(false);
    expect(states('check_replica_lag', { replica: 'r1' }, { lag_seconds: 0 })).toBe(false);
    expect(states('pyautogui', { code: "hotkey('ctrl', 'z')" }, { status: 'success', output: '', error: '' })).toBe(false);
    // A record of a status and a version is mostly values, whatever its one phrase says.
    expect(states('get_status', { service: 'auth service' }, { state: 'healthy', version: '2.8.1', checks: 'all passing' })).toBe(false);
  });

  it('splits camelCase names, separates at escapes and reads letters of any script', () => {
    expect(states('typeText', {}, 'Typed text')).toBe(false);
    // `\n` separates two tokens: the file's lines are news.
    expect(states('read_file', { path: 'notes' }, 'alpha\nbeta')).toBe(true);
    expect(states('translate', { text: 'Forgot your password?' }, { translation: 'Passwort vergessen?' })).toBe(true);
    expect(states('übersetze', { text: 'Änderungen' }, 'Änderungen übersetzt')).toBe(false);
  });

  it('reads member names as the tool’s vocabulary, not news', () => {
    expect(states('t', {}, { nothing_happens_here: 'ok' })).toBe(false);
  });

  it('leaves a long result to the length test and never throws', () => {
    expect(states('t', {}, `${'new words here '.repeat(Math.ceil(RECEIPT_MAX_CHARS / 15))}`)).toBe(false);
    expect(readReceipt('', 't', '')).toBeUndefined();
    // Text cut short mid-string is read as far as it goes.
    expect(readReceipt('"unterminated words', 't', '{')).toBe('states');
  });

  it('reads the arguments only up to a bound', () => {
    const far = `${'x '.repeat(2_000)} nothing happens`;
    expect(states('t', { note: far }, 'Nothing happens.')).toBe(true);
    expect(states('t', { note: 'nothing happens' }, 'Nothing happens.')).toBe(false);
  });
});
