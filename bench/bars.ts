/** The acceptance bars of the benchmarks (issue 2), checked against each run's figures. */

export interface Bar {
  name: 'overheadRatio' | 'detectorEventsPerSec' | 'bytesPerRun';
  /** How the figure must compare with the limit. */
  op: '<=' | '>=';
  limit: number;
}

export const BARS: readonly Bar[] = [
  { name: 'overheadRatio', op: '<=', limit: 1.5 },
  { name: 'detectorEventsPerSec', op: '>=', limit: 1_000_000 },
  { name: 'bytesPerRun', op: '<=', limit: 2_048 },
];

export function meets(bar: Bar, value: number): boolean {
  return bar.op === '<=' ? value <= bar.limit : value >= bar.limit;
}
