/**
 * Conservative normalisation of tool arguments for near-duplicate detection
 * (normArgsHash). It must merge what a model produces when it re-asks the same
 * thing (extra spaces, different case, a word repeated) and must never merge
 * calls that do different things, so every rule only touches plain words of
 * prose-like strings. docs/fingerprints.md lists the rules.
 */

/** Containers nested deeper than this are left as they are. */
const MAX_DEPTH = 64;
/** Longer strings are left as they are: near-duplicate matching of whole documents is not worth their cost on the hot path. */
export const MAX_NORMALIZED_CHARS = 65_536;

/** A plain word: letters (any script) and combining marks, optionally joined by ' ’ or -, optionally ending in , ; ! ? */
const WORD = /^[\p{L}\p{M}]+(?:['’-][\p{L}\p{M}]+)*[,;!?]?$/u;
/** Characters of code, shell syntax and markup: strings holding any of them keep their words' case and repetitions. */
const CODE_CHARS = /[=(){}[\]<>;|&$`\\*]/;
const WHITESPACE_RUN = /\s+/;
/** Quick test for "nothing to do": no whitespace anomalies and no upper-case letter (ASCII or not). */
const MAYBE_CHANGES = /\s\s|[^\S ]|^\s|\s$|\p{Lu}|\p{Lt}/u;

/**
 * Normalises one string:
 * 1. whitespace runs collapse to one space; leading/trailing whitespace goes;
 * 2. unless the string looks like code (any of = ( ) { } [ ] < > ; | & $ ` \ *),
 *    plain words are lower-cased and a word already seen earlier in the string
 *    is dropped (first occurrences keep their order).
 * Tokens that are not plain words (paths, URLs, flags like -R, numbers,
 * identifiers with digits, quoted or punctuated tokens) are never changed.
 * Strings longer than {@link MAX_NORMALIZED_CHARS} are returned unchanged.
 */
export function normalizeText(s: string): string {
  if (s.length > MAX_NORMALIZED_CHARS) return s;
  if (s.indexOf(' ') === -1 && !MAYBE_CHANGES.test(s)) return s;
  const trimmed = s.trim();
  if (trimmed === '') return '';
  const tokens = trimmed.split(WHITESPACE_RUN);
  let out: string;
  if (CODE_CHARS.test(trimmed)) {
    out = tokens.join(' ');
  } else {
    const seen = new Set<string>();
    const kept: string[] = [];
    for (const token of tokens) {
      if (!WORD.test(token)) {
        kept.push(token);
        continue;
      }
      const word = token.toLowerCase();
      if (seen.has(word)) continue;
      seen.add(word);
      kept.push(word);
    }
    out = kept.join(' ');
  }
  return out === s ? s : out;
}

/**
 * Returns `args` itself when normalisation changes nothing (so the caller can
 * reuse the raw hash), else a normalised copy of the changed parts. Only
 * strings inside plain objects and arrays are normalised; keys never are;
 * properties named in `ignore` are dropped at any depth.
 */
export function normalizeArgs(args: unknown, ignore: ReadonlySet<string> | null): unknown {
  try {
    return normalizeValue(args, ignore, []);
  } catch {
    // A throwing getter or proxy: compare such arguments by their raw hash only.
    return args;
  }
}

function normalizeValue(v: unknown, ignore: ReadonlySet<string> | null, ancestors: object[]): unknown {
  if (typeof v === 'string') return normalizeText(v);
  if (typeof v !== 'object' || v === null) return v;
  if (ancestors.length >= MAX_DEPTH || ancestors.includes(v)) return v;
  if (Array.isArray(v)) {
    ancestors.push(v);
    let copy: unknown[] | null = null;
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i];
      const n = normalizeValue(item, ignore, ancestors);
      if (copy !== null) copy.push(n);
      else if (n !== item) {
        copy = v.slice(0, i);
        copy.push(n);
      }
    }
    ancestors.pop();
    return copy ?? v;
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return v;
  ancestors.push(v);
  const src = v as Record<string, unknown>;
  const keys = Object.keys(src);
  let copy: Record<string, unknown> | null = null;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    if (ignore !== null && ignore.has(k)) {
      copy ??= copyPrefix(src, keys, i);
      continue;
    }
    const item = src[k];
    const n = normalizeValue(item, ignore, ancestors);
    if (copy !== null) copy[k] = n;
    else if (n !== item) {
      copy = copyPrefix(src, keys, i);
      copy[k] = n;
    }
  }
  ancestors.pop();
  return copy ?? v;
}

/** A null-prototype copy of the first `n` members (null prototype so a "__proto__" key stays an ordinary member). */
function copyPrefix(src: Record<string, unknown>, keys: string[], n: number): Record<string, unknown> {
  const copy = Object.create(null) as Record<string, unknown>;
  for (let i = 0; i < n; i++) {
    const k = keys[i] as string;
    copy[k] = src[k];
  }
  return copy;
}
