/**
 * Yields to the event loop once a slice of synchronous work has run for
 * `sliceMs`, so one maximal request does not hold up health checks, scrapes
 * and other senders for long. The clock is read every `checkEvery` calls.
 */
export class TimeSlicer {
  private sliceStart = performance.now();
  private sinceCheck = 0;

  constructor(
    private readonly sliceMs = 10,
    private readonly checkEvery = 32,
  ) {}

  /** Call once per unit of work; resolves at once unless the slice is used up. */
  async step(): Promise<void> {
    if (++this.sinceCheck < this.checkEvery) return;
    this.sinceCheck = 0;
    if (performance.now() - this.sliceStart < this.sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.sliceStart = performance.now();
  }
}
