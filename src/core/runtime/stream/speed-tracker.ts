import type { Speed } from '../../../shared/stream/events'

/** Below this span between the first and last content event a rate is noise, not a speed. */
export const MIN_TPS_SPAN_MS = 100

/**
 * Time to first token and output tokens per second (providers.md §3 speed record).
 * tps uses the provider's output-token count when usage arrived, else the number of
 * content events (a close proxy: providers send about one token per chunk). Content that
 * arrives in one burst (a tool call sent whole, a short reply buffered by a proxy) has no
 * measurable generation time, and gets no tps rather than an impossible one.
 */
export class SpeedTracker {
  private firstAt: number | undefined
  private lastAt: number | undefined
  private chunks = 0
  /** Content came after the last clock reading (a long reply reads the clock every 16th event). */
  private unstamped = false
  private outputTokens: number | undefined

  constructor(private readonly startedAt: number = performance.now(), private readonly now: () => number = () => performance.now()) {}

  /**
   * Call on every content event (text, reasoning, tool call, image). The clock is read for the
   * first 64 events and then every 16th: a 200,000-chunk reply need not read it per chunk, and
   * the end of the reply is read when the result is asked for.
   */
  content(): void {
    this.chunks++
    if (this.chunks > 64 && (this.chunks & 15) !== 0) {
      this.unstamped = true
      return
    }
    const t = this.now()
    if (this.firstAt === undefined) this.firstAt = t
    this.lastAt = t
    this.unstamped = false
  }

  setOutputTokens(tokens: number | undefined): void {
    if (typeof tokens === 'number' && tokens > 0) this.outputTokens = tokens
  }

  get started(): boolean {
    return this.firstAt !== undefined
  }

  result(): Speed | undefined {
    if (this.firstAt === undefined) return undefined
    if (this.unstamped) {
      this.lastAt = this.now()
      this.unstamped = false
    }
    const ttft = Math.round(this.firstAt - this.startedAt)
    const seconds = ((this.lastAt ?? this.firstAt) - this.firstAt) / 1000
    const tokens = this.outputTokens ?? this.chunks
    const tps = seconds * 1000 >= MIN_TPS_SPAN_MS ? Math.round((tokens / seconds) * 100) / 100 : undefined
    return tps === undefined ? { ttft } : { tps, ttft }
  }
}
