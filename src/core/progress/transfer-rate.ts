/**
 * Bytes per second over a sliding window. A download's instant rate jumps around with
 * every TCP burst; a few seconds of window gives a speed and a time-left that a person
 * can read without the numbers flickering.
 */
export class TransferRate {
  private readonly samples: { t: number; bytes: number }[] = []

  constructor(private readonly windowMs = 4_000) {}

  /** Record the running byte count at time `t` (ms). */
  add(t: number, bytes: number): void {
    this.samples.push({ t, bytes })
    // Keep one sample older than the window so the rate spans the whole window.
    while (this.samples.length > 2 && this.samples[1]!.t <= t - this.windowMs) this.samples.shift()
  }

  /** Bytes per second across the window; 0 until two samples are apart in time. */
  rate(): number {
    const first = this.samples[0]
    const last = this.samples[this.samples.length - 1]
    if (!first || !last || last.t <= first.t) return 0
    return Math.max(0, ((last.bytes - first.bytes) * 1000) / (last.t - first.t))
  }
}
