import { describe, expect, it } from 'vitest';
import { changedSpan, LISTING_MAX_CHARS, ListedItems } from '../../src/listed-items.js';

describe('changedSpan', () => {
  it('is the stretch that differs, widened to whole tokens and without the JSON around it', () => {
    expect(changedSpan('{"reference":"DEP-118204"}', '{"reference":"DEP-118211"}')).toBe('DEP-118211');
    expect(changedSpan('{"command":"git push origin --delete feat/invoice-pdf-v2"}', '{"command":"git push origin --delete fix/tax-rounding"}')).toBe('fix/tax-rounding');
    expect(changedSpan('{"legal_name":"The Regents of the University of California"}', '{"legal_name":"Massachusetts Institute of Technology"}')).toBe(
      'Massachusetts Institute of Technology',
    );
  });
});

describe('ListedItems', () => {
  const listing = '{"strings":[{"id":48211,"text":"Step 1"},{"id":48212,"text":"Step 2"},{"id":48213,"text":"Step 3"}]}';

  it('names the item a call swapped in from a listing, each item once', () => {
    const items = new ListedItems();
    items.noteListing(listing);
    expect(items.itemTaken('tm', { string_id: 48211 })).toBeUndefined();
    expect(items.itemTaken('tm', { string_id: 48212 })).toBe('48212');
    expect(items.itemTaken('tm', { string_id: 48213 })).toBe('48213');
    // Back to an item already taken: going round, not down the list.
    items.noteArgs('tm', { string_id: 48211 });
    expect(items.itemTaken('tm', { string_id: 48212 })).toBeUndefined();
  });

  it('names nothing the run was not shown, nor a change of words back to ones it tried before', () => {
    const items = new ListedItems();
    items.noteListing('{"messages":[{"subject":"Invoice September"},{"subject":"Newsletter"}]}');
    items.noteArgs('search', { q: 'northwind invoice' });
    expect(items.itemTaken('search', { q: 'northwind invoice October' })).toBeUndefined();
    expect(items.itemTaken('search', { q: 'northwind Newsletter' })).toBe('Newsletter');
    expect(items.itemTaken('search', { q: 'northwind invoice October' })).toBeUndefined();
  });

  it('keeps the latest two listings, and none longer than LISTING_MAX_CHARS', () => {
    const items = new ListedItems();
    items.noteListing(listing);
    items.noteListing('{"a":"first answer"}');
    items.noteListing('{"b":"second answer"}');
    items.noteArgs('tm', { string_id: 48211 });
    expect(items.itemTaken('tm', { string_id: 48212 })).toBeUndefined();
    const long = new ListedItems();
    long.noteListing(`{"ids":"48212 ${'x'.repeat(LISTING_MAX_CHARS)}"}`);
    long.noteArgs('tm', { string_id: 48211 });
    expect(long.itemTaken('tm', { string_id: 48212 })).toBeUndefined();
  });

  it('reads nothing from arguments JSON cannot hold', () => {
    const items = new ListedItems();
    items.noteListing(listing);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    items.noteArgs('tm', { string_id: 48211 });
    expect(items.itemTaken('tm', cyclic)).toBeUndefined();
    expect(items.itemTaken('tm', { string_id: 48213 })).toBeUndefined();
  });
});
