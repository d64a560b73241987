import { fnv1a } from './fingerprint/sketch.js';

/** How many distinct tool names get an id of their own; a collector serving many agents rarely sees more than a few hundred. */
export const EXACT_TOOL_NAMES = 65_536;

/**
 * Interns tool names to small integers shared by every run (the history ring
 * keeps 24 bits per call for it). The table is bounded: a long-running
 * collector fed made-up names by its senders must not grow forever. Past
 * `exact` names, a new name shares one of `exact` hashed ids with other
 * overflow names; within one run's window two of them colliding is as
 * unlikely as a 16-bit hash collision, and the shared id reports its latest name.
 */
export class ToolNames {
  private readonly ids = new Map<string, number>();
  private readonly names: string[] = [];
  private readonly overflowNames: string[] = [];

  constructor(private readonly exact: number = EXACT_TOOL_NAMES) {}

  id(name: string): number {
    const known = this.ids.get(name);
    if (known !== undefined) return known;
    if (this.names.length < this.exact) {
      const id = this.names.length;
      this.names.push(name);
      this.ids.set(name, id);
      return id;
    }
    const bucket = fnv1a(name) % this.exact;
    this.overflowNames[bucket] = name;
    return this.exact + bucket;
  }

  name(id: number): string {
    return (id < this.exact ? this.names[id] : this.overflowNames[id - this.exact]) ?? '';
  }
}
