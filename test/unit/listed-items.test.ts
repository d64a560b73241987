import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../src/fingerprint/index.js';
import { ARGS_MAX_CHARS, changedSpan, LISTING_MAX_CHARS, LISTING_MAX_TERMS, ListedItems } from '../../src/listed-items.js';

/** The arguments' canonical text, as the fingerprint pass hands it over. */
const text = (args: unknown) => canonicalize(args);

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

  it('names the item a call swapped in from a listing', () => {
    const items = new ListedItems();
    items.noteListing(listing);
    expect(items.itemTaken('tm', text({ string_id: 48211 }))).toBeUndefined();
    expect(items.itemTaken('tm', text({ string_id: 48212 }))).toBe('48212');
    expect(items.itemTaken('tm', text({ string_id: 48213 }))).toBe('48213');
  });

  it('names nothing the run was not shown', () => {
    const items = new ListedItems();
    items.noteListing('{"messages":[{"subject":"Invoice September"},{"subject":"Newsletter"}]}');
    items.noteArgs('search', text({ q: 'northwind invoice' }));
    expect(items.itemTaken('search', text({ q: 'northwind invoice October' }))).toBeUndefined();
    expect(items.itemTaken('search', text({ q: 'northwind Newsletter' }))).toBe('Newsletter');
    expect(items.itemTaken('search', text({ q: 'northwind invoice October' }))).toBeUndefined();
  });

  it('finds an item as a listing holds it: in its words order, a part of a path, at the end of a sentence, after an escape', () => {
    const items = new ListedItems();
    items.noteListing(canonicalize({ stdout: '  origin/feat/invoice-pdf-v2\n  origin/fix/tax-rounding\n', note: 'Attached:\nvol-0b7d.' }));
    items.noteArgs('bash', text({ command: 'git push origin --delete feat/invoice-pdf-v2' }));
    expect(items.itemTaken('bash', text({ command: 'git push origin --delete fix/tax-rounding' }))).toBe('fix/tax-rounding');
    items.noteArgs('aws', text({ volume: 'vol-0a11' }));
    expect(items.itemTaken('aws', text({ volume: 'vol-0b7d' }))).toBe('vol-0b7d');
    // Every word of it was listed, but not in this order: made up, not taken.
    const names = new ListedItems();
    names.noteListing(canonicalize({ results: ['refund policy for laptops', 'warranty terms'] }));
    names.noteArgs('kb', text({ q: 'warranty terms' }));
    expect(names.itemTaken('kb', text({ q: 'laptops refund policy' }))).toBeUndefined();
  });

  it('keeps the latest two listings, and none longer than LISTING_MAX_CHARS or with more than LISTING_MAX_TERMS terms', () => {
    const items = new ListedItems();
    items.noteListing(listing);
    items.noteListing('{"a":"first answer"}');
    items.noteListing('{"b":"second answer"}');
    items.noteArgs('tm', text({ string_id: 48211 }));
    expect(items.itemTaken('tm', text({ string_id: 48212 }))).toBeUndefined();
    const long = new ListedItems();
    long.noteListing(`{"ids":"48212 ${'x'.repeat(LISTING_MAX_CHARS)}"}`);
    long.noteArgs('tm', text({ string_id: 48211 }));
    expect(long.itemTaken('tm', text({ string_id: 48212 }))).toBeUndefined();
    const rich = new ListedItems();
    const words = Array.from({ length: LISTING_MAX_TERMS }, (_, i) => `w${i}`).join(' ');
    rich.noteListing(`{"ids":"48212 ${words}"}`);
    rich.noteArgs('tm', text({ string_id: 48211 }));
    expect(rich.itemTaken('tm', text({ string_id: 48212 }))).toBeUndefined();
  });

  it('keeps no arguments longer than ARGS_MAX_CHARS, nor any the host did not serialise', () => {
    const items = new ListedItems();
    items.noteListing(listing);
    items.noteArgs('tm', text({ string_id: 48211, note: 'x'.repeat(ARGS_MAX_CHARS) }));
    expect(items.itemTaken('tm', text({ string_id: 48212, note: 'x'.repeat(ARGS_MAX_CHARS) }))).toBeUndefined();
    items.noteArgs('tm', text({ string_id: 48211 }));
    expect(items.itemTaken('tm', undefined)).toBeUndefined();
    expect(items.itemTaken('tm', text({ string_id: 48213 }))).toBeUndefined();
  });
});
