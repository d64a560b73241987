/**
 * Yields to the event loop once a slice of synchronous work has run for
 * `sliceMs`, so one maximal request does not hold up health checks, scrapes
 * and other senders for long. The clock is read every `checkEvery` calls.
 * Used as `if (slicer.due()) await slicer.pause()`: the check is synchronous,
 * so the common case costs no promise.
 */
export class TimeSlicer {
  private sliceStart = performance.now();
  private sinceCheck = 0;

  constructor(
    private readonly sliceMs = 10,
    private readonly checkEvery = 32,
  ) {}

  /** Call once per unit of work: whether the slice is used up. */
  due(): boolean {
    if (++this.sinceCheck < this.checkEvery) return false;
    this.sinceCheck = 0;
    return performance.now() - this.sliceStart >= this.sliceMs;
  }

  /** Lets other work run, then starts a new slice. */
  async pause(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.sliceStart = performance.now();
  }
}
