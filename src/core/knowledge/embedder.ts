import { AppErrorException } from '../../shared/errors/app-error'
import { parseRetryAfter, sleep } from '../runtime/retry'
import type { CallOptions } from '../runtime/types'

export type EmbedFn = (texts: string[], options: CallOptions) => Promise<{ embeddings: number[][]; dimensions: number }>

export interface EmbedWithBackoffOptions {
  signal: AbortSignal
  /** Called before each wait on a rate limit: the file shows "waiting for the provider", not a failure. */
  onWait(ms: number, reason: string): void
  /** Longest single wait honoured (ms); the provider may ask for less. */
  maxWaitMs?: number
  /** Rate-limit retries before the file fails (a provider limiting for ~30 min is an error). */
  maxAttempts?: number
  /** Tests shorten the waits. */
  scaleWaitMs?(ms: number): number
}

const isRateLimit = (error: unknown): boolean => {
  if (!(error instanceof AppErrorException)) return false
  const status = (error.error.detail as { status?: unknown } | undefined)?.status ?? error.error.status
  return status === 429 || /rate.?limit|quota.*exceed|too many requests/i.test(error.error.errorType)
}

/**
 * One batch of embeddings. A 429 waits for the provider's Retry-After (seen on the HTTP response
 * through our own fetch, since the error mapping keeps no headers) or backs off 1 s, 2 s, 4 s …
 * up to `maxWaitMs`; other failures throw at once. The SDK's own retries are off so every wait
 * is ours, and visible.
 */
export async function embedWithBackoff(embed: EmbedFn, texts: string[], options: EmbedWithBackoffOptions): Promise<number[][]> {
  const maxWait = options.maxWaitMs ?? 60_000
  const maxAttempts = options.maxAttempts ?? 30
  for (let attempt = 0; ; attempt++) {
    let retryAfter: number | undefined
    const observe: typeof fetch = async (input, init) => {
      const response = await fetch(input, init)
      if (response.status === 429) retryAfter = parseRetryAfter(response.headers)
      return response
    }
    try {
      const result = await embed(texts, { signal: options.signal, maxRetries: 0, fetch: observe })
      return result.embeddings
    } catch (error) {
      if (options.signal.aborted || !isRateLimit(error) || attempt + 1 >= maxAttempts) throw error
      const wait = Math.min(maxWait, retryAfter ?? 1000 * 2 ** Math.min(attempt, 6))
      options.onWait(wait, retryAfter !== undefined ? 'The provider asked to wait (429, Retry-After).' : 'The provider is rate limiting (429).')
      await sleep(options.scaleWaitMs ? options.scaleWaitMs(wait) : wait, options.signal)
    }
  }
}
