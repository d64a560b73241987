import * as crypto from 'node:crypto';

/**
 * SHA-256 primitives. The one-shot `crypto.hash` (Node >= 20.12) skips the
 * Hash object that `createHash` allocates, which is several times cheaper for
 * the ~200-byte texts of a typical tool call; older runtimes fall back.
 */
type OneShotHash = (algorithm: string, data: string | NodeJS.ArrayBufferView, outputEncoding: 'hex') => string;
const oneShot: OneShotHash | undefined = (crypto as { hash?: OneShotHash }).hash;

/** Inputs above this are digested from a head and a tail sample so hashing stays bounded in time. */
export const FULL_DIGEST_LIMIT = 64 * 1024 * 1024;
const SAMPLE = FULL_DIGEST_LIMIT / 2;

/** Full 64-hex SHA-256 of a string (as UTF-8) or of raw bytes. */
export function sha256Hex(data: string | NodeJS.ArrayBufferView): string {
  if (oneShot !== undefined) return oneShot('sha256', data, 'hex');
  return crypto.createHash('sha256').update(data).digest('hex');
}

/** First 16 hex chars of the SHA-256 of `text` encoded as UTF-8. */
export function hashText(text: string): string {
  return sha256Hex(text).slice(0, 16);
}

/** Digest of a possibly huge string; `sampled` says whether only its head and tail were read. */
export function digestString(s: string): { hex: string; sampled: boolean } {
  if (s.length <= FULL_DIGEST_LIMIT) return { hex: sha256Hex(s), sampled: false };
  const h = crypto.createHash('sha256');
  h.update(s.slice(0, SAMPLE));
  h.update(s.slice(s.length - SAMPLE));
  return { hex: h.digest('hex'), sampled: true };
}

/** Digest of a byte range; like {@link digestString}, huge ranges are sampled head and tail. */
export function digestBytes(bytes: Uint8Array): { hex: string; sampled: boolean } {
  if (bytes.byteLength <= FULL_DIGEST_LIMIT) return { hex: sha256Hex(bytes), sampled: false };
  const h = crypto.createHash('sha256');
  h.update(bytes.subarray(0, SAMPLE));
  h.update(bytes.subarray(bytes.byteLength - SAMPLE));
  return { hex: h.digest('hex'), sampled: true };
}
