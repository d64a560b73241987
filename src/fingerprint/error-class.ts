/**
 * The class of a failure, read from its message, so that failures that mean
 * the same thing compare equal even when their text differs with the
 * arguments (DESIGN §7: "different commands, same permission denied").
 * errorHash tries the rules in this order and falls back to the whole masked
 * message; docs/fingerprints.md documents each rule and table.
 *
 * Conservative on purpose: a class merges failures for the retry-storm and
 * same-error detectors, so every rule reads only text that names the failure
 * itself (an errno, an HTTP status, a message whose only variable parts are
 * quoted names), never counts, ports or line numbers.
 */

/**
 * errno names read as a class when they appear as a word in the message
 * (upper case, as every runtime prints them). Aliases map to one name.
 */
export const ERRNO_NAMES: readonly string[] = Object.freeze([
  'EPERM', 'ENOENT', 'ESRCH', 'EINTR', 'EIO', 'ENXIO', 'E2BIG', 'ENOEXEC', 'EBADF', 'ECHILD', 'EAGAIN', 'EWOULDBLOCK',
  'ENOMEM', 'EACCES', 'EFAULT', 'EBUSY', 'EEXIST', 'EXDEV', 'ENODEV', 'ENOTDIR', 'EISDIR', 'EINVAL', 'ENFILE', 'EMFILE',
  'ENOTTY', 'ETXTBSY', 'EFBIG', 'ENOSPC', 'ESPIPE', 'EROFS', 'EMLINK', 'EPIPE', 'EDOM', 'ERANGE', 'EDEADLK',
  'ENAMETOOLONG', 'ENOLCK', 'ENOSYS', 'ENOTEMPTY', 'ELOOP', 'ENOTSUP', 'EOPNOTSUPP', 'ENOTCONN', 'ECONNABORTED',
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'EHOSTDOWN', 'ENETUNREACH', 'ENETDOWN', 'EADDRINUSE',
  'EADDRNOTAVAIL', 'ECANCELED', 'EPROTO', 'ENOTFOUND', 'EAI_AGAIN',
]);
const ERRNO_ALIASES: Readonly<Record<string, string>> = { EWOULDBLOCK: 'EAGAIN', EOPNOTSUPP: 'ENOTSUP' };

/**
 * strerror texts (and the resolver's) read as their errno, matched as words,
 * case-insensitively: Go and Node print them in lower case, C tools and
 * Python capitalised. Only texts that cannot be ordinary prose are listed
 * ("Invalid argument" and "File exists" are left out for that reason).
 */
export const ERRNO_PHRASES: Readonly<Record<string, string>> = Object.freeze({
  'permission denied': 'EACCES',
  'operation not permitted': 'EPERM',
  'no such file or directory': 'ENOENT',
  'not a directory': 'ENOTDIR',
  'is a directory': 'EISDIR',
  'directory not empty': 'ENOTEMPTY',
  'no space left on device': 'ENOSPC',
  'read-only file system': 'EROFS',
  'too many open files': 'EMFILE',
  'argument list too long': 'E2BIG',
  'text file busy': 'ETXTBSY',
  'device or resource busy': 'EBUSY',
  'resource temporarily unavailable': 'EAGAIN',
  'cannot allocate memory': 'ENOMEM',
  'broken pipe': 'EPIPE',
  'connection refused': 'ECONNREFUSED',
  'connection reset': 'ECONNRESET',
  'timed out': 'ETIMEDOUT',
  'network is unreachable': 'ENETUNREACH',
  'no route to host': 'EHOSTUNREACH',
  'address already in use': 'EADDRINUSE',
  'name or service not known': 'ENOTFOUND',
  'nodename nor servname provided': 'ENOTFOUND',
  'temporary failure in name resolution': 'EAI_AGAIN',
});

/**
 * Network errnos keep the first `host:port` the message names: a refused
 * database and a refused cache are different failures, while the same
 * refusal reached by varied commands is one.
 */
export const NETWORK_ERRNOS: readonly string[] = Object.freeze([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EHOSTUNREACH', 'EHOSTDOWN', 'ENETUNREACH', 'ENETDOWN',
  'EADDRINUSE', 'EADDRNOTAVAIL', 'ENOTCONN',
]);

/** Standard reason phrases of 4xx/5xx codes, read after the code ("503 Service Unavailable"). */
export const HTTP_REASON_PHRASES: readonly string[] = Object.freeze([
  'bad request', 'unauthorized', 'payment required', 'forbidden', 'not found', 'method not allowed', 'not acceptable',
  'proxy authentication required', 'request timeout', 'conflict', 'gone', 'length required', 'precondition failed',
  'payload too large', 'content too large', 'request entity too large', 'uri too long', 'unsupported media type',
  'range not satisfiable', 'expectation failed', "i'm a teapot", 'misdirected request', 'unprocessable entity',
  'unprocessable content', 'locked', 'failed dependency', 'too early', 'upgrade required', 'precondition required',
  'too many requests', 'request header fields too large', 'unavailable for legal reasons', 'internal server error',
  'not implemented', 'bad gateway', 'service unavailable', 'gateway timeout', 'http version not supported',
  'variant also negotiates', 'insufficient storage', 'loop detected', 'not extended', 'network authentication required',
  'client error', 'server error',
]);

const ERRNO_SET = new Set(ERRNO_NAMES);
const NETWORK_SET = new Set(NETWORK_ERRNOS);
const ERRNO_NAME_RE = /\bE[A-Z0-9_]{2,}\b/g;
const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
const ERRNO_PHRASE_RE = new RegExp(`\\b(?:${Object.keys(ERRNO_PHRASES).map(escapeRe).join('|')})\\b`, 'i');
/** host:port — a bracketed IPv6 address, a name or IPv4 address, or `::` — then a port. */
const ENDPOINT_RE = /(?<![\w.:[\]-])(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9][A-Za-z0-9.-]*|::):(\d{1,5})(?![\w:])/;

/** Where an HTTP status code is read: after HTTP (HTTP 503, HTTP/1.1 503, HTTP Error 503), after status (status 503, status code 503, statusCode: 503), or before its reason phrase. */
const HTTP_STATUS_RES: readonly RegExp[] = [
  /\bHTTP(?:\/\d(?:\.\d)?)?(?: error)?[\s:=]+([45]\d\d)(?!\w|\.\d)/i,
  /\bstatus(?:[ _-]?code)?["']?\s*[:=]?\s*([45]\d\d)(?!\w|\.\d)/i,
  new RegExp(`(?<![\\w.])([45]\\d\\d)[\\s:-]+(?:${HTTP_REASON_PHRASES.map(escapeRe).join('|')})\\b`, 'i'),
];

/**
 * A quoted name: a letter or `_` then letters, digits, `_` or `$`, optionally
 * dotted (`sales`, `public.sales`, `user_id`), in double, single or back
 * quotes, or an argument echo errorHash already masked (`<id>`). Paths, URLs
 * and quoted text with spaces are not names.
 */
const QUOTED_NAME_RE = /(["'`])(?:[\p{L}_][\p{L}\p{N}_$]*(?:\.[\p{L}_][\p{L}\p{N}_$]*)*|<id>)\1/gu;
/** Words (two letters or more) a line must have outside its quoted names to be compared by its shape. */
const SHAPE_MIN_WORDS = 2;
const WORD_RE = /\p{L}{2,}/gu;

/** What a failure is compared by (see {@link errorClass}); a plain object so canonical JSON encodes it. */
export type ErrorClass = { '$lg:errno': string; endpoint?: string } | { '$lg:http': number } | { '$lg:shape': string };

/**
 * The class of an error message (already volatile-masked), or null to
 * compare it whole. Rules, first match wins:
 * 1. errno: the first errno name (ERRNO_NAMES) or strerror text
 *    (ERRNO_PHRASES) in the message; network errnos add the first host:port.
 * 2. HTTP status: a 4xx/5xx code after "HTTP" or "status", or before its
 *    reason phrase.
 * 3. shape: the first line holds a quoted name and at least two words outside
 *    quoted names: that line with every quoted name replaced by `<id>`
 *    (Postgres `relation "sales" does not exist` and its `LINE 1:` context).
 */
export function errorClass(message: string): ErrorClass | null {
  const errno = errnoOf(message);
  if (errno !== null) {
    if (!NETWORK_SET.has(errno)) return { '$lg:errno': errno };
    const endpoint = ENDPOINT_RE.exec(message);
    return endpoint === null ? { '$lg:errno': errno } : { '$lg:errno': errno, endpoint: `${endpoint[1]}:${endpoint[2]}` };
  }
  const http = httpStatusOf(message);
  if (http !== null) return { '$lg:http': http };
  const shape = shapeOf(message);
  return shape === null ? null : { '$lg:shape': shape };
}

/** The first errno name or strerror text in the message, as an errno name. */
function errnoOf(message: string): string | null {
  let name: string | null = null;
  let nameAt = Infinity;
  ERRNO_NAME_RE.lastIndex = 0;
  for (let m = ERRNO_NAME_RE.exec(message); m !== null; m = ERRNO_NAME_RE.exec(message)) {
    if (ERRNO_SET.has(m[0])) {
      name = ERRNO_ALIASES[m[0]] ?? m[0];
      nameAt = m.index;
      break;
    }
  }
  const phrase = ERRNO_PHRASE_RE.exec(message);
  if (phrase !== null && phrase.index < nameAt) return ERRNO_PHRASES[phrase[0].toLowerCase()] ?? name;
  return name;
}

function httpStatusOf(message: string): number | null {
  let best: number | null = null;
  let bestAt = Infinity;
  for (const re of HTTP_STATUS_RES) {
    const m = re.exec(message);
    if (m !== null && m.index < bestAt) {
      best = Number(m[1]);
      bestAt = m.index;
    }
  }
  return best;
}

function shapeOf(message: string): string | null {
  const nl = message.search(/[\r\n]/);
  const line = (nl === -1 ? message : message.slice(0, nl)).trim();
  let names = 0;
  const shape = line.replace(QUOTED_NAME_RE, (_m, q: string) => {
    names++;
    return `${q}<id>${q}`;
  });
  if (names === 0) return null;
  const words = shape.replace(/<id>/g, ' ').match(WORD_RE);
  return words !== null && words.length >= SHAPE_MIN_WORDS ? shape : null;
}
