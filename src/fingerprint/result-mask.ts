import type { Member } from './json-text.js';
import { MaskedIds } from './masked-ids.js';
import { isMaskedScalar, KEPT, keyInfo, MASKED_ID, maskedKeyOf, maskEchoedIds, maskVolatileText, VOLATILE_MARKER, type MaskSettings } from './volatile.js';

/**
 * What a result's walk masks (docs/fingerprints.md, "resultHash: volatile
 * fields"): the walk hands it every member value and every string before
 * writing them, and writes what it returns. It counts the values written as
 * the volatile marker and records the identifiers it masked.
 */
export class ResultMask {
  /** Values written as the volatile marker. */
  maskedValues = 0;
  readonly ids = new MaskedIds();

  /** `echoedIds`: identifiers whose echoes in strings become `<id>` (in echoOrder), known on a second walk. */
  constructor(
    private readonly settings: MaskSettings,
    private readonly echoedIds: readonly string[] | null,
  ) {}

  /** The value to write for member `key`: the volatile marker when the member is masked. */
  member(key: string, member: Member, v: unknown, inArray: boolean): unknown {
    if (!isMaskedScalar(v)) return v;
    const masked = maskedKeyOf((member.info ??= keyInfo(key)), key, this.settings, inArray);
    if (masked === KEPT) return v;
    if (masked === MASKED_ID) this.ids.add(v);
    return VOLATILE_MARKER;
  }

  /** A string value with its volatile text masked. */
  string(v: string): string {
    if (this.settings.defaults) v = maskVolatileText(v);
    if (this.echoedIds !== null) v = maskEchoedIds(v, this.echoedIds);
    if (v === VOLATILE_MARKER) this.maskedValues++;
    return v;
  }
}
