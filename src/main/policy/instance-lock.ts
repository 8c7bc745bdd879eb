/**
 * What the desktop app does at launch, from the two locks it takes: Electron's single-instance
 * lock (one app per user profile) and the data-folder lock (one process per data folder, shared
 * with `npm run serve` and the CLI).
 */
export type LaunchDecision =
  /** Another window of this app is running: it is told (second-instance) and focuses itself; we quit. */
  | { action: 'quit' }
  /** Something else holds the data folder (browser mode, another profile): say who, then quit. */
  | { action: 'refuse'; title: string; message: string }
  | { action: 'run' }

export type DataLockOutcome = { ok: true } | { ok: false; message: string }

export function decideLaunch(singleInstance: boolean, dataLock: () => DataLockOutcome): LaunchDecision {
  // The single-instance check comes first: a second launch of the app must focus the first,
  // not show an error about a folder the first one legitimately holds.
  if (!singleInstance) return { action: 'quit' }
  const lock = dataLock()
  if (!lock.ok) return { action: 'refuse', title: 'Switchboard is already using this data folder', message: lock.message }
  return { action: 'run' }
}

/** What the running window does when a second launch is reported: show itself and come to the front. */
export function focusActions(window: { minimized: boolean; visible: boolean } | undefined): Array<'restore' | 'show' | 'focus'> {
  if (!window) return []
  return [...(window.minimized ? (['restore'] as const) : []), ...(window.visible ? [] : (['show'] as const)), 'focus']
}

/**
 * Electron's single-instance lock, waited for while its holder says it is closing (its data-folder
 * lock is marked quitting): "Restart to update" on the AppImage starts the new copy before the old
 * one has exited. Bounded: a holder that stays is treated as running (the newcomer focuses it and
 * quits, as for any second launch).
 */
export function requestInstanceLock(request: () => boolean, holderQuitting: () => boolean, sleep: (ms: number) => void, limitMs: number, now: () => number = Date.now): boolean {
  const until = now() + limitMs
  for (;;) {
    if (request()) return true
    if (!holderQuitting() || now() >= until) return false
    sleep(100)
  }
}
