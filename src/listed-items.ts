/**
 * Items the run was shown, for telling a sweep over a listing from a loop.
 *
 * A run that reads a list (volume ids, deposit references, the legal names
 * in a CSV) and then asks one tool about each item in turn gets the same
 * answer, the same emptiness or the same failure again and again with new
 * arguments: exactly what `same-answer`, `empty-streak` and `same-error`
 * count. What sets the sweep apart is where the new arguments come from:
 * each call swaps in an item that an earlier result listed, one the tool
 * was not asked about before. A reworded question, a guessed id or a
 * re-spelt value takes words the run made up (or came back to), not an item
 * of a listing.
 *
 * Per run this keeps the masked text of the latest LISTINGS results that
 * said something new (each at most LISTING_MAX_CHARS, else it is not kept),
 * the arguments of the latest call of the last TOOLS tools (references to
 * the values the call was given, serialised only when a sweep detector needs
 * them; a string longer than LISTING_MAX_CHARS is not kept), and the hashes
 * of the stretches changed so far.
 */

/** Results kept as listings: the list a sweep works down, plus one answer of the sweep's own. */
const LISTINGS = 2;
/** Longer results are not kept: a page of text is no list, and memory per run stays bounded. */
export const LISTING_MAX_CHARS = 4_096;
/** Tools whose latest arguments are kept. */
const TOOLS = 4;
/** Changed stretches remembered (as hashes): a sweep takes each item once. */
const TAKEN = 16;
/** Shorter spans (a digit, `v2`) are too common to say where they came from. */
const MIN_ITEM_CHARS = 3;
/** Characters that belong to an item's token: a span is widened to whole tokens (`vol-0b7d…`, `fix/tax-rounding`). */
const TOKEN = /[A-Za-z0-9_\-./:]/;
/** What a span sheds at its ends: the quotes, brackets and key separators of the JSON around it. */
const FRAME = /^[\s"',:[\]{}()]+|[\s"',:[\]{}()]+$/g;

export class ListedItems {
  private readonly texts: string[] = [];
  private readonly lastArgs = new Map<string, unknown>();
  private readonly taken = new Uint32Array(TAKEN);
  private takenCount = 0;

  /** Keeps the masked text of a result that said something new, if it is short enough to be a listing. */
  noteListing(text: string): void {
    if (text.length > LISTING_MAX_CHARS) return;
    if (this.texts.length === LISTINGS) this.texts.shift();
    this.texts.push(text);
  }

  /**
   * The item this call takes from a listing, or undefined: the stretch of its
   * arguments that differs from the tool's previous call (widened to whole
   * tokens), when a kept result holds it verbatim and no earlier call of the
   * run changed to it. Records the call's arguments either way.
   */
  itemTaken(tool: string, args: unknown): string | undefined {
    const previous = this.lastArgs.get(tool);
    this.noteArgs(tool, args);
    if (previous === undefined || this.texts.length === 0) return undefined;
    const now = jsonText(args);
    const before = jsonText(previous);
    if (now === undefined || before === undefined || now === before) return undefined;
    const item = changedSpan(before, now);
    if (item.length < MIN_ITEM_CHARS || before.includes(item)) return undefined;
    // What the previous call had in its place was tried too (a sweep's first item has no call before it to differ from).
    this.remember(changedSpan(now, before));
    // A stretch changed to before (a word tried, left, tried again) is the run going round, whether or not it was listed.
    if (!this.remember(item)) return undefined;
    return this.texts.some((t) => t.includes(item)) ? item : undefined;
  }

  /** Remembers a changed stretch by its hash; false when it was already remembered. */
  private remember(stretch: string): boolean {
    const key = hashOf(stretch);
    const held = this.takenCount < TAKEN ? this.takenCount : TAKEN;
    for (let i = 0; i < held; i++) if (this.taken[i] === key) return false;
    this.taken[this.takenCount++ % TAKEN] = key;
    return true;
  }

  /** Records the call's arguments as its tool's latest (a call the detectors did not need to read). */
  noteArgs(tool: string, args: unknown): void {
    this.lastArgs.delete(tool);
    if (typeof args === 'string' && args.length > LISTING_MAX_CHARS) return;
    if (this.lastArgs.size === TOOLS) this.lastArgs.delete(this.lastArgs.keys().next().value as string);
    this.lastArgs.set(tool, args);
  }
}

/** What differs between two texts, between their common head and tail, widened to whole tokens and unframed. */
export function changedSpan(before: string, now: string): string {
  let head = 0;
  while (head < now.length && head < before.length && now[head] === before[head]) head++;
  let tail = 0;
  while (tail < now.length - head && tail < before.length - head && now[now.length - 1 - tail] === before[before.length - 1 - tail]) tail++;
  let start = head;
  while (start > 0 && TOKEN.test(now[start - 1]!)) start--;
  let end = now.length - tail;
  while (end < now.length && TOKEN.test(now[end]!)) end++;
  return now.slice(start, end).replace(FRAME, '');
}

function jsonText(value: unknown): string | undefined {
  try {
    return typeof value === 'string' ? value : JSON.stringify(value);
  } catch {
    // Arguments JSON cannot hold (a cycle, a BigInt): no item can be read from them.
    return undefined;
  }
}

/** FNV-1a over the item's UTF-16 units: taken items are remembered by hash, not kept. */
function hashOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
