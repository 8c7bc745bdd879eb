/**
 * Quitting waits for the core: Electron's `will-quit` does not wait for a promise, so the first
 * one is cancelled (preventDefault), the core closes (stores flushed, tool servers stopped, the
 * data lock released), and then the app exits for real. A second quit while closing (the user
 * presses Quit again) waits for the same close; a close that hangs is cut off after `timeoutMs`.
 */
export interface QuitSteps {
  close(): Promise<void>
  release(): void
  exit(code: number): void
  /** Where a failure to close is reported (the log); quitting goes on. */
  report(error: unknown): void
}

export function quitSequence(steps: QuitSteps, timeoutMs = 10_000) {
  let state: 'running' | 'closing' | 'closed' = 'running'
  let closing: Promise<void> | undefined
  return {
    /** Call from `will-quit`; returns whether Electron's own quit must be held back (preventDefault). */
    onWillQuit(): boolean {
      if (state === 'closed') return false
      if (state === 'closing') return true
      state = 'closing'
      let timer: ReturnType<typeof setTimeout> | undefined
      const timeout = new Promise<void>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`The core did not close within ${timeoutMs} ms; quitting anyway.`)), timeoutMs)
      })
      closing = Promise.race([steps.close(), timeout])
        .catch((error: unknown) => steps.report(error))
        .finally(() => {
          clearTimeout(timer)
          try {
            steps.release()
          } finally {
            state = 'closed'
            steps.exit(0)
          }
        })
      return true
    },
    get done(): Promise<void> | undefined {
      return closing
    }
  }
}
