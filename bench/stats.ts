/** Timing and summary helpers shared by the benchmarks. */

/** Monotonic clock in nanoseconds, as a number (exact up to ~104 days). */
export function nowNs(): number {
  return Number(process.hrtime.bigint());
}

/** CPU time (user + system, all threads) this process has used, in nanoseconds. */
export function cpuNs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1_000;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Spread of the samples: (max - min) / median, to show how noisy a figure was. */
export function spread(values: readonly number[]): number {
  const m = median(values);
  return m === 0 ? 0 : (Math.max(...values) - Math.min(...values)) / m;
}

export function round(value: number, digits = 0): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/**
 * A small seeded PRNG (mulberry32) so that generated workloads are the same
 * on every run of the bench.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 16 hex chars from a PRNG, the shape of a loopguard hash. */
export function randomHash16(random: () => number): string {
  const hi = Math.floor(random() * 0x100000000);
  const lo = Math.floor(random() * 0x100000000);
  return hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');
}

/** Written by benchmark loops so the optimiser cannot drop the work being timed. */
export const sink = { value: 0 };
