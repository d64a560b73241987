import { CorpusError } from '../corpus.js';

/** One parsed JSON value of an input file, with the line it started on (JSON Lines) or none (one document). */
export interface InputValue {
  line: number | undefined;
  value: unknown;
  /** The JSON text it was parsed from (decoders that keep 64-bit integers exact parse it themselves). */
  source: string;
}

/** A file as the format readers see it: its text, and its JSON as one document or as JSON Lines. */
export interface Input {
  /** The file's name without directories or extension: run ids of formats that carry none start from it. */
  name: string;
  text: string;
  form: 'document' | 'lines';
  values: InputValue[];
}

/**
 * An input that does not hold what its format requires. `where` is the line
 * (JSON Lines) and `field` the JSON path inside that line or document, so the
 * message reads like the benchmark corpus's own errors.
 */
export class FormatError extends Error {
  readonly code = 'LOOPGUARD_BAD_INPUT';
  constructor(
    readonly where: string | undefined,
    readonly field: string,
    expected: string,
  ) {
    super(`${where === undefined ? '' : `${where}: `}field "${field}" ${expected}`);
    this.name = 'FormatError';
  }
}

/** Where a value sits, for messages: `line 3` in JSON Lines, nothing in a single document (the path says it all). */
export function lineOf(value: InputValue): string | undefined {
  return value.line === undefined ? undefined : `line ${value.line}`;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `a` + `b` → `a.b`, `a` + 0 → `a[0]`; the root path is empty. */
export function at(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

/** Reads a required field, failing with its path when it is not there or not of the kind asked for. */
export function need<T>(
  where: string | undefined,
  path: string,
  value: unknown,
  check: (v: unknown) => v is T,
  expected: string,
): T {
  if (!check(value)) throw new FormatError(where, path || '(document)', expected);
  return value;
}

export const isArray = (v: unknown): v is unknown[] => Array.isArray(v);
export const isString = (v: unknown): v is string => typeof v === 'string';

function basename(file: string): string {
  const base = file.split(/[\\/]/).pop() ?? file;
  const dot = base.indexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
}

/** The line of a JSON syntax error, from the engine's message (`at position N`, or `(line N column M)` in newer engines). */
function errorLine(text: string, message: string): number | undefined {
  const explicit = /\(line (\d+) column \d+\)/.exec(message);
  if (explicit) return Number(explicit[1]);
  const position = /at position (\d+)/.exec(message);
  if (!position) return undefined;
  let line = 1;
  for (let i = 0; i < Number(position[1]) && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/**
 * Parses a file as one JSON document when it is one, else as JSON Lines.
 * A broken JSON Lines file fails at its first broken line, as the benchmark
 * corpus always did (same message); a broken multi-line document fails at the
 * line of the syntax error.
 */
export function parseInput(file: string, raw: string): Input {
  const text = raw.replace(/^\uFEFF/, '');
  const name = basename(file);
  let documentError: Error;
  try {
    return { name, text, form: 'document', values: [{ line: undefined, value: JSON.parse(text) as unknown, source: text }] };
  } catch (err) {
    documentError = err as Error;
  }
  const values: InputValue[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const content = lines[i]!;
    if (content.trim() === '') continue;
    try {
      values.push({ line: i + 1, value: JSON.parse(content) as unknown, source: content });
    } catch (err) {
      if (values.length === 0 && /^\s*[[{]\s*$/.test(content)) {
        // A pretty-printed document opening on its own line: the document's error is the one to report, at its line when the engine says where.
        const line = errorLine(text, documentError.message);
        throw new FormatError(line === undefined ? undefined : `line ${line}`, '(document)', `is not valid JSON: ${documentError.message}`);
      }
      throw new CorpusError(i + 1, '(line)', `is not valid JSON: ${(err as Error).message}`);
    }
  }
  return { name, text, form: 'lines', values };
}
