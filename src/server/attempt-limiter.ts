/**
 * Limits access-password guesses per client address and for the whole server.
 *
 * Per address: the first few failures cost only the fixed answer delay; after that each
 * failure doubles the wait before the next attempt is even looked at, and after many the
 * address is locked for minutes. Globally the same happens with larger numbers, so many
 * addresses together cannot guess fast either. While an address must wait, an attempt is
 * refused without comparing the password, so a correct guess during the wait gains nothing.
 */
export interface AttemptLimits {
  /** Failures per address before back-off starts. */
  freeFailures: number
  /** Failures per address after which it is locked for `lockMs`. */
  lockAfter: number
  lockMs: number
  /** Failures across all addresses before the global back-off starts, and the global lock. */
  globalFreeFailures: number
  globalLockAfter: number
  /** Longest back-off step. */
  maxBackoffMs: number
}

export const DEFAULT_ATTEMPT_LIMITS: AttemptLimits = {
  freeFailures: 5,
  lockAfter: 20,
  lockMs: 15 * 60_000,
  globalFreeFailures: 50,
  globalLockAfter: 200,
  maxBackoffMs: 5 * 60_000
}

interface Record {
  failures: number
  waitUntil: number
}

export type AttemptDecision = { allowed: true } | { allowed: false; retryAfterMs: number }

export class AttemptLimiter {
  private readonly byAddress = new Map<string, Record>()
  private readonly global: Record = { failures: 0, waitUntil: 0 }

  constructor(
    private readonly now: () => number = Date.now,
    private readonly limits: AttemptLimits = DEFAULT_ATTEMPT_LIMITS
  ) {}

  check(address: string): AttemptDecision {
    const now = this.now()
    const waitUntil = Math.max(this.byAddress.get(address)?.waitUntil ?? 0, this.global.waitUntil)
    return waitUntil > now ? { allowed: false, retryAfterMs: waitUntil - now } : { allowed: true }
  }

  /** Holds the address until its answer is sent, so guesses cannot be pipelined. */
  hold(address: string, ms: number): void {
    const record = this.record(address)
    record.waitUntil = Math.max(record.waitUntil, this.now() + ms)
  }

  /** Records a failure; returns how many failures in a row this address has now. */
  fail(address: string): number {
    const now = this.now()
    const record = this.record(address)
    record.failures++
    // Replaces the hold of the attempt just answered (a timer may fire a hair before the
    // wall clock says the hold is over).
    record.waitUntil = now + this.wait(record.failures, this.limits.freeFailures, this.limits.lockAfter)
    this.global.failures++
    this.global.waitUntil = Math.max(
      this.global.waitUntil,
      now + this.wait(this.global.failures, this.limits.globalFreeFailures, this.limits.globalLockAfter)
    )
    // Forget addresses nobody has heard from for a long time, so the map stays small.
    if (this.byAddress.size > 10_000) {
      for (const [key, value] of this.byAddress) if (value.waitUntil < now) this.byAddress.delete(key)
    }
    return record.failures
  }

  succeed(address: string): void {
    this.byAddress.delete(address)
    this.global.failures = 0
    this.global.waitUntil = 0
  }

  private wait(failures: number, free: number, lockAfter: number): number {
    if (failures >= lockAfter) return this.limits.lockMs
    if (failures < free) return 0
    return Math.min(this.limits.maxBackoffMs, 1000 * 2 ** (failures - free))
  }

  private record(address: string): Record {
    let record = this.byAddress.get(address)
    if (!record) this.byAddress.set(address, (record = { failures: 0, waitUntil: 0 }))
    return record
  }
}
