import type { Outcome } from '../../types.js';
import type { ToolStep } from '../corpus.js';

/** What an agent log says about one tool call's outcome. */
export interface Observation {
  tool: string;
  /** The shell command, for shell tools: decides whether the call was a search. */
  command?: string | undefined;
  /** What the tool printed or returned, as text. */
  output: string;
  /** The process exit code, when the log records one. */
  exitCode?: number | undefined;
  /** The log itself marks the call as failed (an error event, an `is_error` flag). */
  failed?: boolean | undefined;
}

export interface Classified {
  status: Outcome;
  /** With `status: "error"`: how it failed (the output, or the exit code when there is none). */
  error?: string | undefined;
}

/**
 * Lines that say a call failed, whatever the tool (real/README.md "Status
 * rules"): Python tracebacks and `XxxError:` / `XxxException:` lines, tool
 * errors (`ERROR:`, `Error: ...`), an editor's lint rejection or refused
 * replacement, and HTTP 404s.
 */
const FAILURE_PATTERNS: readonly RegExp[] = [
  /^Traceback \(most recent call last\)/m,
  /^\s*(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception):/m,
  /^ERROR:/m,
  /^Error: /m,
  /introduced new syntax error/i,
  /No replacement was performed/,
  /\b404\b[^\n]*\bnot found\b|\bnot found\b[^\n]*\b404\b/i,
];

/** Shell programs whose job is to find or list things: no output from them means nothing was found. */
const SEARCH_PROGRAMS = new Set(['grep', 'egrep', 'fgrep', 'rg', 'ag', 'ack', 'find', 'fd', 'ls', 'locate']);
/** Tool names that search or list, in any agent's vocabulary (search_dir, find_file, search_direct_flight, list_files…). */
const SEARCH_TOOL = /search|find|grep|list|lookup|query/i;
/** What a search that found nothing prints. */
const NOTHING_FOUND = /^(?:\[\]|\{\}|null|No matches found\b[^\n]*|No (?:results|files|matches)\b[^\n]*)?$/i;

function programOf(command: string): string {
  // The last program of a pipeline or command list decides what printing nothing means (`cd src && grep y`, `cat x | grep y`).
  const stages = command.split(/&&|\|\||[;|]/).filter((s) => s.trim() !== '');
  const words = (stages[stages.length - 1] ?? '').trim().split(/\s+/);
  const program = words.find((w) => !/^\w+=/.test(w) && w !== 'sudo') ?? '';
  return program.split('/').pop() ?? '';
}

function isSearch(o: Observation): boolean {
  if (o.command !== undefined) return SEARCH_PROGRAMS.has(programOf(o.command)) || SEARCH_TOOL.test(programOf(o.command));
  return SEARCH_TOOL.test(o.tool);
}

/**
 * The outcome class of one call read from an agent's log, by the corpus's
 * status rules: `error` for a failure the log records (an error event, a
 * non-zero exit with output, a traceback or error line), `empty` for a search
 * that returned nothing, otherwise `ok`. Every agent-log reader classifies
 * through here, so the rules live in one place.
 */
export function classifyObservation(o: Observation): Classified {
  const output = o.output.trim();
  const search = isSearch(o);
  if (search && NOTHING_FOUND.test(output) && !o.failed) return { status: 'empty' };
  const nonZeroExit = o.exitCode !== undefined && o.exitCode !== 0;
  if (o.failed || (nonZeroExit && output !== '') || FAILURE_PATTERNS.some((p) => p.test(output))) {
    return { status: 'error', error: output !== '' ? o.output : nonZeroExit ? `exit code ${o.exitCode}` : 'failed' };
  }
  return { status: 'ok' };
}

/** A step's outcome fields for an observation: the output as the result, or, for a failure, as the error. */
export function observed(o: Observation): Pick<ToolStep, 'status'> & Partial<ToolStep> {
  const c = classifyObservation(o);
  return c.status === 'error' ? { status: 'error', error: c.error } : { status: c.status, result: o.output, hasResult: true };
}
