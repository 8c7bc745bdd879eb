/** Retries before the first byte: which failures, and how long to wait (Retry-After honoured up to a cap). */

export interface RetryDecision {
  retryable: boolean
  /** The provider's demand (Retry-After / retry-after-ms), if any. */
  retryAfterMs?: number
  reason: string
  /** For the message's wording. */
  kind?: 'rate_limit' | 'server' | 'connection'
  status?: number
}

type HeaderBag = { get(name: string): string | null } | Record<string, string | undefined>

function header(headers: HeaderBag | undefined, name: string): string | undefined {
  if (!headers) return undefined
  if (typeof (headers as { get?: unknown }).get === 'function') return (headers as { get(n: string): string | null }).get(name) ?? undefined
  return (headers as Record<string, string | undefined>)[name]
}

/** Retry-After in milliseconds: `retry-after-ms`, or `retry-after` as seconds or an HTTP date. */
export function parseRetryAfter(headers: HeaderBag | undefined, now = Date.now()): number | undefined {
  const ms = header(headers, 'retry-after-ms')
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms))
  const value = header(headers, 'retry-after')
  if (!value) return undefined
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.max(0, Number(value) * 1000)
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

export function retryDecision(error: unknown): RetryDecision {
  const e = (error ?? {}) as { status?: number; headers?: HeaderBag; name?: string; message?: string; cause?: { code?: string } }
  const status = typeof e.status === 'number' ? e.status : undefined
  if (status === undefined) {
    const connection = e.name === 'APIConnectionError' || /ECONNREFUSED|ECONNRESET|fetch failed|socket hang up/i.test(`${e.message ?? ''} ${e.cause?.code ?? ''}`)
    return connection ? { retryable: true, reason: 'connection failed', kind: 'connection' } : { retryable: false, reason: 'not retryable' }
  }
  const retryAfterMs = parseRetryAfter(e.headers)
  if (status === 429) return { retryable: true, retryAfterMs, reason: 'rate limited (429)', kind: 'rate_limit', status }
  if (status === 408 || status === 409 || status >= 500) return { retryable: true, retryAfterMs, reason: `provider error (${status})`, kind: 'server', status }
  return { retryable: false, reason: `status ${status}` }
}

/** Exponential backoff with jitter when the provider gave no Retry-After: 0.5 s, 1 s, 2 s … up to 8 s. */
export function backoffMs(attempt: number): number {
  const base = Math.min(8000, 500 * 2 ** attempt)
  return Math.round(base * (0.75 + Math.random() * 0.25))
}

/** Resolves after `ms`, or rejects at once when the signal fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new DOMException('Aborted', 'AbortError'))
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason ?? new DOMException('Aborted', 'AbortError'))
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
