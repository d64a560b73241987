/**
 * Subjects of checks: what a tool call checked, inferred from its arguments
 * (docs/model-turns.md, "Completion gate"). A failed call is a failed check
 * on its subjects; a later success on the same subject clears it.
 *
 * - `service://host:port`: a URL anywhere in the arguments (the port from the
 *   scheme when none is given), `host`/`hostname` with `port`, and the target
 *   of curl, wget, httpie, nc, ncat or telnet in a shell command;
 * - `test://target`: a test runner in a shell command (pytest, jest, vitest,
 *   mocha, go test, cargo test, rspec, npm/yarn/pnpm/bun test), one subject
 *   per path or test id it was given (`-k`/`-t`/`-run`/`--grep` name one);
 *   a run without any is the whole suite, `test://*`, whose success clears
 *   every test subject;
 * - `file://path`: the path argument (`path`, `file`, `file_path`, `filePath`,
 *   `filename`, `target_file`) of a call without a command.
 *
 * A subject names the thing, never more of the arguments: a URL keeps its
 * host and port only (no user, path or query).
 */

export type SubjectKind = 'service' | 'test' | 'file';

/** A per-tool rule that survives serialisation (collector config): subjects from one argument, or none at all. */
export type SubjectRule = 'none' | { kind: SubjectKind; arg: string };
/** A per-tool rule as a function of the arguments (in-process only: functions do not reach the collector). */
export type SubjectFunction = (args: unknown) => string | readonly string[] | undefined;

/** The whole test suite: its success clears every test subject. */
export const WHOLE_SUITE = 'test://*';
/** Subjects kept per call: a command naming dozens of files is not a check of each. */
const MAX_PER_CALL = 8;
const MAX_SUBJECT_CHARS = 200;
const DEFAULT_PORTS: Record<string, number> = { http: 80, https: 443, ws: 80, wss: 443, grpc: 443, grpcs: 443, ftp: 21, redis: 6379, postgres: 5432, postgresql: 5432, mysql: 3306, mongodb: 27017, amqp: 5672 };

const COMMAND_KEYS = ['command', 'cmd', 'script', 'shell'];
const PATH_KEYS = ['path', 'file', 'file_path', 'filePath', 'filename', 'target_file'];
const URL_IN_TEXT = /\b([a-z][a-z0-9+.-]*):\/\/(?:[^\s/@'"]*@)?(\[[0-9a-f:]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?/gi;
const HOST_PORT = /^(\[[0-9a-f:]+\]|[a-z0-9][a-z0-9.-]*):(\d{1,5})(?:\/|$)/i;

function cut(subject: string): string {
  return subject.length > MAX_SUBJECT_CHARS ? subject.slice(0, MAX_SUBJECT_CHARS) : subject;
}

function service(host: string, port: number | string): string {
  return cut(`service://${host.toLowerCase()}:${port}`);
}

/** The services of the URLs in a text (scheme known or port given). */
function servicesInText(text: string, out: Set<string>): void {
  if (!text.includes('://')) return;
  for (const m of text.matchAll(URL_IN_TEXT)) {
    const port = m[3] ?? DEFAULT_PORTS[m[1]!.toLowerCase()];
    if (port !== undefined) out.add(service(m[2]!, port));
  }
}

/** The first of `keys` holding a non-empty string. */
function firstString(args: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = args[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/** Splits a command line into simple commands (on `&&`, `||`, `;`, `|` and newlines) of unquoted words. */
function simpleCommands(command: string): string[][] {
  return command
    .split(/&&|\|\||[;|\n]/)
    .map((part) => (part.match(/"[^"]*"|'[^']*'|\S+/g) ?? []).map((w) => w.replace(/^(["'])(.*)\1$/, '$2')))
    .filter((words) => words.length > 0);
}

/** Drops what only launches the runner: env assignments, `sudo`, `npx`, `python -m`, `uv run`, ... */
function launched(words: string[]): string[] {
  let i = 0;
  for (;;) {
    const w = words[i];
    if (w === undefined) return [];
    if (/^[A-Z_][A-Z0-9_]*=/.test(w) || ['sudo', 'npx', 'bunx', 'exec', 'time', 'env'].includes(w)) i++;
    else if (/^python[0-9.]*$/.test(w) && words[i + 1] === '-m') i += 2;
    else if (['uv', 'poetry', 'pipenv', 'pnpm', 'bundle'].includes(w) && (words[i + 1] === 'run' || words[i + 1] === 'exec')) i += 2;
    else return words.slice(i);
  }
}

const HTTP_CLIENTS = new Set(['curl', 'wget', 'http', 'https', 'xh']);
const SOCKET_CLIENTS = new Set(['nc', 'ncat', 'netcat', 'telnet']);
/** Runner words, and how many of them name the runner (`go test` is two). */
const RUNNERS: Array<[string[], number]> = [
  [['pytest'], 1],
  [['py.test'], 1],
  [['jest'], 1],
  [['vitest', 'run'], 2],
  [['vitest'], 1],
  [['mocha'], 1],
  [['rspec'], 1],
  [['go', 'test'], 2],
  [['cargo', 'test'], 2],
  [['npm', 'test'], 2],
  [['npm', 'run', 'test'], 3],
  [['yarn', 'test'], 2],
  [['pnpm', 'test'], 2],
  [['bun', 'test'], 2],
];
/** Options whose value names tests by name. */
const NAME_FILTERS = new Set(['-k', '-t', '-run', '--grep', '--testNamePattern', '-g']);

function runnerLength(words: string[]): number {
  for (const [names, length] of RUNNERS) if (names.every((n, i) => words[i] === n)) return length;
  return 0;
}

/** The test targets of a runner's arguments: paths and test ids, and the values of name filters. */
function testTargets(args: string[]): string[] {
  const targets: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (w === '--') continue;
    if (NAME_FILTERS.has(w)) {
      if (args[i + 1] !== undefined) targets.push(args[++i]!);
      continue;
    }
    const eq = w.match(/^(--testNamePattern|--grep|-run)=(.+)$/);
    if (eq) targets.push(eq[2]!);
    else if (!w.startsWith('-') && w !== './...') targets.push(w);
  }
  return targets;
}

function commandSubjects(command: string, out: Set<string>): void {
  for (const words of simpleCommands(command)) {
    const cmd = launched(words);
    const head = cmd[0];
    if (head === undefined) continue;
    if (HTTP_CLIENTS.has(head)) {
      const text = cmd.slice(1).join(' ');
      const before = out.size;
      servicesInText(text, out);
      // curl localhost:8080/health: a host and port with no scheme.
      if (out.size === before) {
        for (const w of cmd.slice(1)) {
          const m = w.match(HOST_PORT);
          if (m) out.add(service(m[1]!, m[2]!));
        }
      }
      continue;
    }
    if (SOCKET_CLIENTS.has(head)) {
      const rest = cmd.slice(1).filter((w) => !w.startsWith('-'));
      if (rest.length >= 2 && /^\d{1,5}$/.test(rest[1]!)) out.add(service(rest[0]!, rest[1]!));
      continue;
    }
    const runner = runnerLength(cmd);
    if (runner === 0) continue;
    const targets = testTargets(cmd.slice(runner));
    if (targets.length === 0) out.add(WHOLE_SUITE);
    for (const t of targets) out.add(cut(`test://${t}`));
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The built-in rules (see the module comment). */
function inferred(args: unknown): Set<string> {
  const out = new Set<string>();
  if (typeof args === 'string') {
    commandSubjects(args, out);
    if (out.size === 0) servicesInText(args, out);
    return out;
  }
  if (!isRecord(args)) return out;
  const command = firstString(args, COMMAND_KEYS);
  if (command !== undefined) {
    commandSubjects(command, out);
    return out;
  }
  const host = args.host ?? args.hostname;
  const port = args.port;
  if (typeof host === 'string' && host !== '' && (typeof port === 'number' || (typeof port === 'string' && /^\d{1,5}$/.test(port)))) out.add(service(host, port));
  for (const key in args) {
    const value = args[key];
    if (typeof value === 'string') servicesInText(value, out);
  }
  if (out.size > 0) return out;
  const path = firstString(args, PATH_KEYS);
  if (path !== undefined) out.add(cut(`file://${path}`));
  return out;
}

/** A per-tool serialisable rule applied to the arguments. */
function byRule(args: unknown, rule: Exclude<SubjectRule, 'none'>): Set<string> {
  const out = new Set<string>();
  const value = isRecord(args) ? args[rule.arg] : undefined;
  if (typeof value !== 'string' && typeof value !== 'number') return out;
  const text = String(value);
  if (rule.kind === 'service') {
    servicesInText(text, out);
    const m = text.match(HOST_PORT);
    if (out.size === 0 && m) out.add(service(m[1]!, m[2]!));
    if (out.size === 0 && text !== '') out.add(cut(`service://${text.toLowerCase()}`));
  } else if (text !== '') {
    out.add(cut(`${rule.kind}://${text}`));
  }
  return out;
}

/**
 * The subjects a call checked (empty when none is known). `rule` replaces the
 * built-in inference for the tool: `'none'`, an argument to read, or a
 * function (whose errors are the caller's to catch).
 */
export function subjectsOf(args: unknown, rule?: SubjectRule | SubjectFunction): string[] {
  let found: Iterable<string>;
  if (rule === undefined) found = inferred(args);
  else if (rule === 'none') return [];
  else if (typeof rule === 'function') {
    const own = rule(args);
    found = own === undefined ? [] : typeof own === 'string' ? [own] : own;
  } else found = byRule(args, rule);
  return [...found].filter((s) => typeof s === 'string' && s !== '').map(cut).slice(0, MAX_PER_CALL);
}

/** Do the arguments name a file (a non-empty `path`, `file`, … argument, as for `file://` subjects)? */
export function namesAFile(args: unknown): boolean {
  return isRecord(args) && firstString(args, PATH_KEYS) !== undefined;
}

/**
 * A failure that only says the thing is not there (HTTP 404/410, ENOENT, no
 * such file) answers a question (does it exist?) instead of failing a check:
 * it neither fails nor clears a subject.
 */
const NOT_THERE = /\bENOENT\b|no such file or directory|does not exist|\b(?:404|410)\b|\bnot found\b(?! in\b)/i;
const HEAD_CHARS = 300;

export function saysNotThere(text: string | undefined): boolean {
  return text !== undefined && NOT_THERE.test(text.length > HEAD_CHARS ? text.slice(0, HEAD_CHARS) : text);
}
