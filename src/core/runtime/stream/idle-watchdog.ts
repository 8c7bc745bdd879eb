/**
 * Fires once when no activity was reported for `idleMs`. One coarse interval timer for the
 * whole stream, not a timer per chunk, so a 200 000-chunk stream costs a timestamp write each.
 * The SDKs' own timeouts end at the response headers; this covers a stall after them.
 */
export class IdleWatchdog {
  private last = Date.now()
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
    this.last = Date.now()
  }

  get expired(): boolean {
    return this.fired
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
  }

  private check(): void {
    if (this.fired || Date.now() - this.last < this.idleMs) return
    this.fired = true
    this.stop()
    this.onIdle()
  }
}
