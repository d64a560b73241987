import { describe, expect, it } from 'vitest';
import { PAGE_HEADER_MAX_CHARS, pageStateHash } from '../../../src/fingerprint/index.js';

const header = (position: string) =>
  `[Season Passes | Season-Long Access](https://www.example.com/season-passes) The viewport shows 20% of the webpage, and is positioned ${position} of the page.`;

describe('pageStateHash', () => {
  it('names the view, not the reading of it: two readings of one view share it', () => {
    const first = pageStateHash(`${header('at the top')} | OCR: Season passes from $89 Buy now`);
    const again = pageStateHash(`${header('at the top')} | OCR: Here is the transcribed text: SEASON PASSES $89 BUY`);
    expect(first).toMatch(/^[0-9a-f]{16}$/);
    expect(again).toBe(first);
  });

  it('tells another place on the page, or another page, apart', () => {
    const top = pageStateHash(`${header('at the top')} | OCR: a`);
    expect(pageStateHash(`${header('at the bottom')} | OCR: a`)).not.toBe(top);
    expect(pageStateHash(`${header('at the top').replace('season-passes', 'daily-tickets')} | OCR: a`)).not.toBe(top);
  });

  it('cuts at the first " | " after the address, so a title with bars keeps them', () => {
    const withTitle = (title: string) => pageStateHash(`[${title}](https://www.example.com/a) at the top | OCR: text`);
    expect(withTitle('Passes | Access')).not.toBe(withTitle('Passes | Tickets'));
  });

  it('reads a plain address line too, and the first line only', () => {
    expect(pageStateHash('Current URL: https://example.com/cart\nItems: 2')).toBe(pageStateHash('Current URL: https://example.com/cart\nItems: 3'));
    expect(pageStateHash('Items: 2\nCurrent URL: https://example.com/cart')).toBeUndefined();
  });

  it('shows no page for results without a web address in their head, or not text', () => {
    expect(pageStateHash('Found class Gallery in models.py')).toBeUndefined();
    expect(pageStateHash('copied to s3://bucket/key')).toBeUndefined();
    expect(pageStateHash('copied s3://bucket/key, see https://console.example.com/s3')).toMatch(/^[0-9a-f]{16}$/);
    expect(pageStateHash(`${'x'.repeat(PAGE_HEADER_MAX_CHARS)} https://example.com/late`)).toBeUndefined();
    expect(pageStateHash({ url: 'https://example.com' })).toBeUndefined();
    expect(pageStateHash('{"items":[{"url":"https://example.com/1"}]}')).toBeUndefined();
    expect(pageStateHash(undefined)).toBeUndefined();
  });
});
