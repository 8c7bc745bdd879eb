/**
 * One job's published states to everyone watching it. A watcher gets the latest state only: a
 * slow one skips the states it had no time to read, never the last one (the caller publishes
 * the final state like any other).
 */
export class ProgressFeed<S> {
  private readonly watchers = new Set<{ pending?: S; wake?: () => void }>()

  publish(state: S): void {
    for (const watcher of this.watchers) {
      watcher.pending = state
      const wake = watcher.wake
      watcher.wake = undefined
      wake?.()
    }
  }

  /** `current`, then each published state, ending with the first that `ends` (also returned), or undefined once `signal` aborts. */
  async *watch(current: S, ends: (state: S) => boolean, signal?: AbortSignal): AsyncGenerator<S, S | undefined> {
    const watcher: { pending?: S; wake?: () => void } = { pending: current }
    this.watchers.add(watcher)
    try {
      for (;;) {
        await new Promise<void>((resolve) => {
          if (watcher.pending !== undefined || signal?.aborted) return resolve()
          const onAbort = () => resolve()
          signal?.addEventListener('abort', onAbort, { once: true })
          watcher.wake = () => {
            signal?.removeEventListener('abort', onAbort)
            resolve()
          }
        })
        const next = watcher.pending
        watcher.pending = undefined
        if (next !== undefined) {
          yield next
          if (ends(next)) return next
        }
        if (signal?.aborted) return undefined
      }
    } finally {
      this.watchers.delete(watcher)
    }
  }
}
