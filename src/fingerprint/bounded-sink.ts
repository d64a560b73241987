import { createHash, type Hash } from 'node:crypto';

/** Tail text is handed to the digest in pieces of at least this many code units (fewer, larger updates). */
const FLUSH_AT = 65_536;

/**
 * Holds a canonical text up to `limit` UTF-16 code units; everything after
 * the cut is streamed into a SHA-256 instead of being kept, so the finished
 * text is bounded whatever the value's size (docs/fingerprints.md, "Size and
 * time bounds", rule 2).
 */
export class BoundedSink {
  head = '';
  private tailHash: Hash | null = null;
  private pending = '';
  private tailLength = 0;

  constructor(private readonly limit: number) {}

  write(token: string): void {
    if (this.tailHash === null) {
      if (this.head.length + token.length <= this.limit) {
        this.head += token;
        return;
      }
      this.startTail(token);
      return;
    }
    this.pending += token;
    this.tailLength += token.length;
    if (this.pending.length >= FLUSH_AT) {
      this.tailHash.update(this.pending);
      this.pending = '';
    }
  }

  private startTail(token: string): void {
    let cut = this.limit - this.head.length;
    // Never split a surrogate pair: UTF-8 cannot encode half of one.
    if (cut > 0 && isHighSurrogate(token.charCodeAt(cut - 1)) && isLowSurrogate(token.charCodeAt(cut))) cut--;
    this.head += token.slice(0, cut);
    this.tailHash = createHash('sha256');
    this.pending = token.slice(cut);
    this.tailLength = this.pending.length;
  }

  /** An independent sink holding the same text so far (strings are immutable; a started tail digest is copied). */
  clone(): BoundedSink {
    const c = new BoundedSink(this.limit);
    c.head = this.head;
    if (this.tailHash !== null) {
      c.tailHash = this.tailHash.copy();
      c.pending = this.pending;
      c.tailLength = this.tailLength;
    }
    return c;
  }

  /** True once the text went past the limit and the rest is being digested. */
  get overflowed(): boolean {
    return this.tailHash !== null;
  }

  finish(): string {
    if (this.tailHash === null) return this.head;
    this.tailHash.update(this.pending);
    const total = this.head.length + this.tailLength;
    return `${this.head}{"$lg:truncated":"${this.tailHash.digest('hex')}","len":${total}}`;
  }
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}
function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
