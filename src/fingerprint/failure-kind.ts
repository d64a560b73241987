import type { FailureKind } from '../types.js';
import type { ErrorClass } from './error-class.js';
import { NETWORK_ERRNOS } from './error-class.js';

/**
 * Transient or deterministic (DESIGN §3), from what a failure says about
 * itself. A retry against an outage may pass, so transient failures keep the
 * retry-friendly tiers; anything else sent again unchanged fails the same
 * way, so it is a loop by the third attempt. A tool's own retryable flag
 * (`loopguard.error.retryable`) wins over all of this.
 */

/** Errnos of a resource that may come back: the network ones, plus a busy or exhausted local resource. */
const TRANSIENT_ERRNOS: ReadonlySet<string> = new Set([...NETWORK_ERRNOS, 'ETIMEDOUT', 'EAGAIN', 'EBUSY', 'EMFILE', 'ENFILE', 'EINTR']);

/** HTTP statuses a retry may clear: request timeout, too early, too many requests, and server-side failures. */
function transientHttp(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

/**
 * Words of an error type or message that say "try again later". Checked on
 * the type and the head of the message only: a traceback's body quotes code.
 */
const TRANSIENT_TEXT =
  /time[sd]?[ _-]?out|timed out|deadline exceeded|rate[ _-]?limit|too many requests|throttl|temporar(?:il)?y|try again|retry later|service unavailable|overloaded|connection (?:reset|refused|closed|aborted)|socket hang up|network error|econnreset|\b(?:408|425|429|50[0-4])\b/i;
const HEAD_CHARS = 300;

/** Classifies a failure from its error type, message and error class. Never throws. */
export function failureKind(errorType: string | null, message: string | null, errorClass: ErrorClass | null, retryable?: boolean): FailureKind {
  if (retryable !== undefined) return retryable ? 'transient' : 'deterministic';
  if (errorClass !== null) {
    if ('$lg:errno' in errorClass) return TRANSIENT_ERRNOS.has(errorClass['$lg:errno']) ? 'transient' : 'deterministic';
    if ('$lg:http' in errorClass) return transientHttp(errorClass['$lg:http']) ? 'transient' : 'deterministic';
  }
  if (errorType !== null && TRANSIENT_TEXT.test(errorType)) return 'transient';
  if (message !== null && TRANSIENT_TEXT.test(message.length > HEAD_CHARS ? message.slice(0, HEAD_CHARS) : message)) return 'transient';
  return 'deterministic';
}
