import { echoableId } from './volatile.js';

/**
 * The identifiers a result's walk masked under `id`/`*_id` members, as text,
 * each once and in the order met. Their echoes in the result's strings are
 * masked too, which needs a second walk when there are any (strings can come
 * before the identifier in key order; see canonicalizeMasked).
 */
export class MaskedIds {
  values: string[] | null = null;

  add(v: unknown): void {
    const id = echoableId(v);
    if (id === null) return;
    if (this.values === null) this.values = [id];
    else if (!this.values.includes(id)) this.values.push(id);
  }
}
