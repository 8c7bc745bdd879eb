/**
 * Fires once when no activity was reported for `idleMs`. One coarse interval timer for the
 * whole stream, not a timer per chunk; `touch` only raises a flag (no clock read), which the
 * timer turns into a time, so a 200,000-chunk stream costs a field write per chunk.
 * The SDKs' own timeouts end at the response headers; this covers a stall after them.
 */
export class IdleWatchdog {
  private last = Date.now()
  private active = false
  private timer: ReturnType<typeof setInterval> | undefined
  private fired = false

  constructor(private readonly idleMs: number, private readonly onIdle: () => void) {
    if (idleMs > 0 && Number.isFinite(idleMs)) {
      const tick = Math.max(5, Math.min(1000, Math.floor(idleMs / 4)))
      this.timer = setInterval(() => this.check(), tick)
      this.timer.unref?.()
    }
  }

  touch(): void {
    this.active = true
  }

  get expired(): boolean {
    return this.fired
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
  }

  private check(): void {
    const now = Date.now()
    if (this.active) {
      // Activity since the last tick: it happened at most one tick ago.
      this.active = false
      this.last = now
    }
    if (this.fired || now - this.last < this.idleMs) return
    this.fired = true
    this.stop()
    this.onIdle()
  }
}
