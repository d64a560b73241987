import { LONG_TEXT_CHARS } from './sketch.js';

/** A written token shorter than this cannot hold a free-text string literal (its content and two quotes). */
const FREE_TEXT_TOKEN_CHARS = LONG_TEXT_CHARS + 2;

/**
 * The sketch's view of a walk: sees every token of a canonical text as it is
 * written and tells whether the text may hold free text (a string literal
 * of LONG_TEXT_CHARS or more), which is what decides whether the value gets
 * a sketch at all. Every string literal of a canonical text lies inside one
 * written token (a string, a member name, a `$lg:` marker, a Map/Set
 * element's text), so a text none of whose tokens is that long has none, and
 * textSketch need not scan it — most values. A text that went past maxBytes
 * is scanned anyway: its truncation marker can lengthen a cut literal.
 */
export class FreeTextProbe {
  /** Some token was long enough to hold free text. */
  possible = false;

  write(token: string): void {
    if (token.length >= FREE_TEXT_TOKEN_CHARS) this.possible = true;
  }
}
