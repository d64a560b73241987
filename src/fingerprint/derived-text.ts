import type { BoundedSink } from './bounded-sink.js';
import { stringText, type Member } from './json-text.js';
import { normalizeText } from './normalize.js';

/**
 * The arguments' derived text, written during the same walk as their
 * canonical text: strings through normalizeText (normArgsHash) and the
 * `ignore` members dropped (normArgsHash, argsShapeHash). Until the first
 * difference (a string that normalises differently, an ignored member) the
 * two texts are the same and nothing is written twice: the derived text is
 * forked from the canonical one there. The walk calls each method before it
 * writes the same token to the canonical text, so a fork copies the text up
 * to it.
 *
 * Arguments whose canonical text outgrows maxBytes are not transformed
 * (near-duplicate matching is for ordinary calls, and its cost must stay
 * bounded): the derived text stops for good once the canonical text
 * overflowed, and {@link finish} reports none.
 */
export class DerivedText {
  private text: BoundedSink | null = null;
  /** > 0 while the walk is inside an ignored member: nothing reaches this text. */
  private skipping = 0;
  private deriving = true;
  /** The next member written is the first of its object in this text (ignored members place commas differently). */
  private firstMember = false;

  constructor(
    private readonly canonical: BoundedSink,
    private readonly limit: number,
    private readonly normalize: boolean,
    private readonly ignore: ReadonlySet<string> | null,
  ) {}

  /** Structure and scalars, the same in both texts. */
  write(token: string): void {
    if (this.text !== null && this.skipping === 0) this.text.write(token);
  }

  /** A string value, written `written` in the canonical text. */
  string(value: string, written: string): void {
    if (this.normalize && this.active()) {
      const n = normalizeText(value);
      if (n !== value) {
        this.fork().write(stringText(n, this.limit));
        return;
      }
    }
    this.write(written);
  }

  /** An object opens; `withMember`: the walk wrote a member of its own (`$lg:exception`) with the brace. */
  openObject(withMember: boolean): void {
    if (this.skipping === 0) this.firstMember = !withMember;
  }

  /** An object closed: the member holding it, if any, was written. */
  closeObject(): void {
    if (this.skipping === 0) this.firstMember = false;
  }

  /** Member `key` starts; true when it is left out of this text, until {@link endIgnored}. */
  member(key: string, member: Member): boolean {
    if (this.ignore !== null && this.ignore.has(key) && this.active()) {
      this.fork();
      this.skipping++;
      return true;
    }
    if (this.skipping === 0) {
      if (this.text !== null) this.text.write(this.firstMember ? member.first : member.next);
      this.firstMember = false;
    }
    return false;
  }

  endIgnored(): void {
    this.skipping--;
  }

  /** The derived text; null when it equals the canonical text by construction, or is not produced (overflow). */
  finish(): string | null {
    return this.text === null || this.canonical.overflowed ? null : this.text.finish();
  }

  /** Still deriving, and outside an ignored member. */
  private active(): boolean {
    if (this.deriving && this.canonical.overflowed) {
      this.deriving = false;
      this.text = null;
    }
    return this.deriving && this.skipping === 0;
  }

  private fork(): BoundedSink {
    return (this.text ??= this.canonical.clone());
  }
}
