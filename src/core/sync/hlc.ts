/**
 * A hybrid logical clock: wall-clock milliseconds plus a counter, so that a change made after
 * seeing another device's change is always ordered after it, even when that device's clock runs
 * ahead. Stamps are strings that sort in clock order: `<ms, 13 digits>-<counter, 5 digits>-<device>`;
 * the device id breaks ties, so two devices never produce equal stamps.
 */
export type Hlc = string

/** The wall clock, injectable so tests can skew devices by hours. */
export type WallClock = () => number

const MAX_DRIFT_MS = 24 * 60 * 60 * 1000

export function formatHlc(ms: number, counter: number, device: string): Hlc {
  return `${String(Math.max(0, Math.floor(ms))).padStart(13, '0')}-${String(counter).padStart(5, '0')}-${device}`
}

export function parseHlc(hlc: Hlc): { ms: number; counter: number; device: string } {
  const match = /^(\d{13})-(\d{5})-(.+)$/.exec(hlc)
  if (!match) throw new Error(`Not a clock stamp: ${JSON.stringify(hlc)}`)
  return { ms: Number(match[1]), counter: Number(match[2]), device: match[3]! }
}

/**
 * The stamp of a value every install starts with (the default agent as created): older than any
 * stamp a change gets, so any edit anywhere wins over it. The value's hash stands where a device id
 * would, so devices that hold different such values (each its own creation time) all keep the same one.
 */
export const installStamp = (valueHash: string): Hlc => formatHlc(0, 0, `installed.${valueHash}`)
export const isInstallStamp = (hlc: Hlc | undefined): boolean => hlc?.startsWith('0000000000000-00000-installed.') ?? false

export const isHlc = (value: unknown): value is Hlc => typeof value === 'string' && /^\d{13}-\d{5}-.+$/.test(value)

export class HybridClock {
  private ms = 0
  private counter = 0

  constructor(
    /** This device's id (set when sync is set up). */
    public device: string,
    private readonly wall: WallClock = Date.now
  ) {}

  /** The wall clock as this device reads it. */
  now(): number {
    return this.wall()
  }

  /** A stamp for a local change made at `at` (this device's wall clock; defaults to now). */
  tick(at = this.wall()): Hlc {
    const physical = Math.min(at, this.wall())
    if (physical > this.ms) {
      this.ms = physical
      this.counter = 0
    } else {
      this.counter++
      if (this.counter > 99_999) {
        this.ms++
        this.counter = 0
      }
    }
    return formatHlc(this.ms, this.counter, this.device)
  }

  /**
   * Moves past a stamp seen from another device, so later local stamps sort after it. A stamp
   * more than a day ahead of this wall clock is not followed (a broken clock must not drag every
   * device into its future); the change it carries still merges by its stamp.
   */
  observe(remote: Hlc): void {
    const { ms, counter } = parseHlc(remote)
    if (ms > this.wall() + MAX_DRIFT_MS) return
    if (ms > this.ms) {
      this.ms = ms
      this.counter = counter
    } else if (ms === this.ms && counter > this.counter) this.counter = counter
  }

  /** The newest stamp this clock has issued or seen. */
  get last(): Hlc {
    return formatHlc(this.ms, this.counter, this.device)
  }
}
