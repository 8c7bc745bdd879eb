import { AppErrorException } from '../../../shared/errors/app-error'
import { CANCELLED_MESSAGE, runtimeError } from '../runtime-error'
import { sleep as abortableSleep } from '../retry'

/** Where an image task is, reported while it runs (the image service turns these into task states). */
export type ImageProgress = { phase: 'submitted'; taskId?: string } | { phase: 'polling'; attempt: number; status?: string }

export interface ImagePollingOptions {
  /** First wait between polls (ms). Default 500. */
  initialMs?: number
  /** Each wait is the previous one times this. Default 1.5. */
  factor?: number
  /** Longest wait (ms). Default 5000. */
  maxMs?: number
  /** Polls before 'Task timeout after N attempts'. Default 120 (about ten minutes at the cap). */
  maxAttempts?: number
  /** Failed polls in a row that are tolerated; the next one fails the task. Default 3. */
  maxConsecutiveFailures?: number
  onProgress?(progress: ImageProgress): void
}

/** providers.md §7: 500 ms, × 1.5, at most 5 s, 3 consecutive failures allowed. */
export const IMAGE_POLLING_DEFAULTS = { initialMs: 500, factor: 1.5, maxMs: 5000, maxAttempts: 120, maxConsecutiveFailures: 3 } as const

/** What one poll found: finished with a value, failed for good, or still running. */
export type PollOutcome<T> = { done: true; value: T } | { done: false; status?: string }

export const cancelled = (provider: string): AppErrorException => new AppErrorException(runtimeError('ProviderBizError', CANCELLED_MESSAGE, provider))

/** Waits `ms`, or rejects with the provider's cancellation error as soon as the signal fires. */
export function sleep(ms: number, signal: AbortSignal | undefined, provider: string): Promise<void> {
  return abortableSleep(ms, signal).catch(() => {
    throw cancelled(provider)
  })
}

/**
 * Polls a task until `poll` says it is done. A poll that throws a *transient* error (the
 * network, a 5xx, an unreadable body) is retried up to the allowed consecutive failures;
 * a poll that throws an AppErrorException marked `final` (the task itself failed) ends it.
 */
export async function pollTask<T>(args: {
  provider: string
  poll: (attempt: number) => Promise<PollOutcome<T>>
  /** Decides whether a thrown error ends the task at once (task failed) or counts as a failed poll. */
  isFinal: (error: unknown) => boolean
  options?: ImagePollingOptions
  signal?: AbortSignal
}): Promise<T> {
  const o: Required<Omit<ImagePollingOptions, 'onProgress'>> = { ...IMAGE_POLLING_DEFAULTS, ...definedOnly(args.options) }
  let wait = o.initialMs
  let failures = 0
  for (let attempt = 1; attempt <= o.maxAttempts; attempt++) {
    await sleep(wait, args.signal, args.provider)
    wait = Math.min(o.maxMs, wait * o.factor)
    let outcome: PollOutcome<T>
    try {
      outcome = await args.poll(attempt)
    } catch (error) {
      if (args.signal?.aborted) throw cancelled(args.provider)
      if (args.isFinal(error)) throw error
      failures++
      if (failures > o.maxConsecutiveFailures) throw error
      args.options?.onProgress?.({ phase: 'polling', attempt, status: 'retrying' })
      continue
    }
    failures = 0
    if (outcome.done) return outcome.value
    args.options?.onProgress?.({ phase: 'polling', attempt, ...(outcome.status ? { status: outcome.status } : {}) })
  }
  throw new AppErrorException(runtimeError('ProviderBizError', `Task timeout after ${o.maxAttempts} attempts`, args.provider))
}

function definedOnly(options: ImagePollingOptions | undefined): Partial<Record<keyof typeof IMAGE_POLLING_DEFAULTS, number>> {
  const out: Record<string, number> = {}
  for (const key of Object.keys(IMAGE_POLLING_DEFAULTS)) {
    const value = (options as Record<string, unknown> | undefined)?.[key]
    if (typeof value === 'number' && Number.isFinite(value)) out[key] = value
  }
  return out
}
