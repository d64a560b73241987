/**
 * Chanting: a model response that repeats one passage over and over within
 * itself (Gemini CLI's name, and in substance its content-loop check). A
 * window of `CHUNK_CHARS` characters slides over the prose; a chunk seen
 * `MIN_REPEATS` times, close together (on average at most `MAX_MEAN_GAP`
 * characters apart) and with few distinct stretches of text between its
 * occurrences, is a chant. The last condition tells a loop from a list of
 * distinct items that share a prefix.
 *
 * Markdown structure repeats by nature: fenced and indented code is not
 * read at all, and every table row, list item, heading, quote and divider
 * starts a new stretch of prose, so repeated rows or bullets never add up.
 * The cost is bounded: at most `MAX_TEXT_CHARS` (the end of a longer text)
 * are read, in one pass of integer arithmetic per character, with memory of
 * a few typed arrays the size of the text.
 */

const CHUNK_CHARS = 50;
/** Occurrences of one chunk that make a chant. */
const MIN_REPEATS = 10;
const MAX_MEAN_GAP = CHUNK_CHARS * 5;
/** More distinct stretches than this between the occurrences: distinct items sharing a prefix, not a loop. */
const MAX_DISTINCT_PERIODS = Math.floor(MIN_REPEATS / 2);
/** Occurrences of a chunk further apart than this cannot be in one chant: the link between them is not kept. */
const WINDOW_CHARS = MAX_MEAN_GAP * (MIN_REPEATS - 1) + CHUNK_CHARS;
/** A chant long enough to matter fills the end of a response that hit the output limit: the end is what is read. */
const MAX_TEXT_CHARS = 100_000;

const FENCE = /^\s*(```|~~~)/;
const INDENTED_CODE = /^( {4}|\t)/;
/** Lines that begin a new markdown element: table row or rule, list item, heading, quote, divider. */
const ELEMENT_START = /^\s*(\|.*\||[|+-]{3,}|[*+-]\s|\d+[.)]\s|#{1,6}\s|>\s?)/;
/** A rule drawn with characters: ends the prose before it and is not read. */
const DIVIDER = /^\s*(([-_=*~#.]\s*){3,}|[\u2500-\u257F]+)\s*$/;
/** A repeated unit without a letter or digit is decoration (a rule inside a line, a row of dots), not words chanted. */
const WORDY = /[\p{L}\p{N}]/u;

/**
 * How many times the passage a response chants occurs in it, counted by the
 * chanted chunk within the stretch of prose where it was found (a last
 * repetition cut short may not hold the whole chunk); 0 when the text does
 * not chant.
 */
export function chantRepeats(text: string): number {
  const tail = text.length > MAX_TEXT_CHARS ? text.slice(-MAX_TEXT_CHARS) : text;
  let best = 0;
  for (const prose of proseStretches(tail)) {
    if (prose.length < CHUNK_CHARS * MIN_REPEATS) continue;
    const chunk = chantedChunk(prose);
    if (chunk !== undefined) best = Math.max(best, occurrences(prose, chunk));
  }
  return best;
}

/** The text cut at markdown element boundaries, code left out. */
function proseStretches(text: string): string[] {
  const stretches: string[] = [];
  let current: string[] = [];
  let inFence = false;
  const close = (): void => {
    if (current.length > 0) stretches.push(current.join('\n'));
    current = [];
  };
  for (const line of text.split('\n')) {
    if (FENCE.test(line)) {
      inFence = !inFence;
      close();
      continue;
    }
    if (inFence || INDENTED_CODE.test(line) || DIVIDER.test(line)) {
      close();
      continue;
    }
    if (ELEMENT_START.test(line)) close();
    current.push(line);
  }
  close();
  return stretches;
}

/** Rolling hash of the window (Rabin–Karp) in 32-bit integer arithmetic: wrap-around is the modulus. */
const HASH_BASE = 131;
let dropFactor = 1;
for (let i = 1; i < CHUNK_CHARS; i++) dropFactor = Math.imul(dropFactor, HASH_BASE);

/** Buckets of the table that links each chunk to its previous occurrence, at most (a power of two). */
const MAX_TABLE_SIZE = 1 << 16;

/**
 * The first chunk found chanted in one stretch of prose, if any. Chunks are
 * keyed by a rolling hash (one multiply per character, no string per
 * position); each position links to the previous one with the same hash
 * (`previous`) and counts how many such links in a row stay within the
 * window, so the last occurrences of a chunk are found by walking back
 * instead of being kept in lists. A bucket shared by two hashes keeps the
 * later one: a link lost that way is found again at the next repetition of
 * a chant. A hash match is confirmed on the text itself.
 */
function chantedChunk(prose: string): string | undefined {
  const positions = prose.length - CHUNK_CHARS + 1;
  let size = 1024;
  while (size < positions * 2 && size < MAX_TABLE_SIZE) size <<= 1;
  const lastAt = new Int32Array(size).fill(-1);
  const lastHash = new Int32Array(size);
  const previous = new Int32Array(positions);
  const runs = new Uint8Array(positions);
  let h = 0;
  for (let i = 0; i < CHUNK_CHARS - 1; i++) h = (Math.imul(h, HASH_BASE) + prose.charCodeAt(i)) | 0;
  for (let at = 0; at < positions; at++) {
    if (at > 0) h = (h - Math.imul(prose.charCodeAt(at - 1), dropFactor)) | 0;
    h = (Math.imul(h, HASH_BASE) + prose.charCodeAt(at + CHUNK_CHARS - 1)) | 0;
    const bucket = h & (size - 1);
    const before = lastAt[bucket]!;
    lastAt[bucket] = at;
    const linked = before >= 0 && lastHash[bucket] === h && at - before <= WINDOW_CHARS;
    lastHash[bucket] = h;
    previous[at] = linked ? before : -1;
    runs[at] = linked ? Math.min(runs[before]! + 1, MIN_REPEATS) : 1;
    if (runs[at]! < MIN_REPEATS) continue;
    let first = at;
    for (let i = 1; i < MIN_REPEATS; i++) first = previous[first]!;
    // Close together: the last occurrences at most MAX_MEAN_GAP apart on average (a template recurring every few lines is not).
    if (at - first > MAX_MEAN_GAP * (MIN_REPEATS - 1)) continue;
    const recent = new Array<number>(MIN_REPEATS);
    for (let i = MIN_REPEATS - 1, p = at; i >= 0; i--, p = previous[p]!) recent[i] = p;
    if (sameText(prose, recent) && chants(prose, recent)) return prose.slice(at, at + CHUNK_CHARS);
  }
  return undefined;
}

/** Whether the chunks at these positions are one text (a hash collision is not a repeat). */
function sameText(prose: string, positions: number[]): boolean {
  const first = prose.slice(positions[0]!, positions[0]! + CHUNK_CHARS);
  return positions.every((p) => prose.startsWith(first, p));
}

/** Few distinct stretches between the occurrences (more: distinct items sharing a prefix), each of words rather than decoration. */
function chants(prose: string, positions: number[]): boolean {
  const periods = new Set<string>();
  for (let i = 1; i < positions.length; i++) periods.add(prose.slice(positions[i - 1]!, positions[i]!));
  if (periods.size > MAX_DISTINCT_PERIODS) return false;
  for (const period of periods) if (!WORDY.test(period)) return false;
  return true;
}

function occurrences(prose: string, chunk: string): number {
  let count = 0;
  for (let at = prose.indexOf(chunk); at !== -1; at = prose.indexOf(chunk, at + 1)) count++;
  return count;
}
