import type { Speed } from '../../../shared/stream/events'

/**
 * Time to first token and output tokens per second (providers.md §3 speed record).
 * tps uses the provider's output-token count when usage arrived, else the number of
 * content events (a close proxy: providers send about one token per chunk).
 */
export class SpeedTracker {
  private firstAt: number | undefined
  private lastAt: number | undefined
  private chunks = 0
  private outputTokens: number | undefined

  constructor(private readonly startedAt: number = performance.now(), private readonly now: () => number = () => performance.now()) {}

  /** Call on every content event (text, reasoning, tool call, image). */
  content(): void {
    const t = this.now()
    if (this.firstAt === undefined) this.firstAt = t
    this.lastAt = t
    this.chunks++
  }

  setOutputTokens(tokens: number | undefined): void {
    if (typeof tokens === 'number' && tokens > 0) this.outputTokens = tokens
  }

  get started(): boolean {
    return this.firstAt !== undefined
  }

  result(): Speed | undefined {
    if (this.firstAt === undefined) return undefined
    const ttft = Math.round(this.firstAt - this.startedAt)
    const seconds = ((this.lastAt ?? this.firstAt) - this.firstAt) / 1000
    const tokens = this.outputTokens ?? this.chunks
    const tps = seconds > 0 ? Math.round((tokens / seconds) * 100) / 100 : undefined
    return tps === undefined ? { ttft } : { tps, ttft }
  }
}
