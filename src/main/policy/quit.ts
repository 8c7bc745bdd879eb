/**
 * Quitting waits for the core: Electron's `will-quit` does not wait for a promise, so the first
 * one is cancelled (preventDefault), the core closes (stores flushed, tool servers stopped, the
 * data lock released), and then the app exits for real. A second quit while closing (the user
 * presses Quit again) waits for the same close; a close that hangs is cut off after `timeoutMs`.
 *
 * "Restart to update" closes the same way first and only then hands over to the installer
 * (`closeThen`): the AppImage updater starts the new copy at once, and it must find the data
 * folder and the single-instance lock free, or it quits and leaves nothing running.
 */
export interface QuitSteps {
  close(): Promise<void>
  /** Releases the data-folder lock (and the single-instance lock). */
  release(): void
  /** Says in the data-folder lock that its holder is closing, so a newcomer waits for it (bounded). */
  quitting?(): void
  exit(code: number): void
  /** Where a failure to close is reported (the log); quitting goes on. */
  report(error: unknown): void
}

export function quitSequence(steps: QuitSteps, timeoutMs = 10_000, installGraceMs = 10_000) {
  let state: 'running' | 'closing' | 'closed' = 'running'
  let closing: Promise<void> | undefined
  const begin = (then: () => void): Promise<void> => {
    state = 'closing'
    try {
      steps.quitting?.()
    } catch (error) {
      steps.report(error)
    }
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
          then()
        }
      })
    return closing
  }
  return {
    /** Call from `will-quit`; returns whether Electron's own quit must be held back (preventDefault). */
    onWillQuit(): boolean {
      if (state === 'closed') return false
      if (state === 'closing') return true
      void begin(() => steps.exit(0))
      return true
    },
    /**
     * Closes the core and releases the locks, then runs `install` (which quits the app itself).
     * An install that throws, or does not quit within `installGraceMs`, ends in an exit: the
     * core is closed, so this process has nothing left to do.
     */
    closeThen(install: () => void): Promise<void> {
      if (state !== 'running') return closing ?? Promise.resolve()
      return begin(() => {
        try {
          install()
          setTimeout(() => steps.exit(0), installGraceMs).unref?.()
        } catch (error) {
          steps.report(error)
          steps.exit(0)
        }
      })
    },
    get done(): Promise<void> | undefined {
      return closing
    }
  }
}
