import { create } from 'zustand'
import type { SyncStatus } from '../../../shared/bridge/procedures/sync'
import type { StreamHandle } from '../../../shared/bridge/client'
import { bridge } from '../../stores/app-store'

interface SyncStoreState {
  /** The core's sync status; undefined until it first answers. */
  status?: SyncStatus
}

/** Sync's status for the sidebar and Settings → Sync: one subscription to `sync.watch` per window. */
export const useSync = create<SyncStoreState>()(() => ({}))

let handle: StreamHandle | undefined
let retry: ReturnType<typeof setTimeout> | undefined

/** A status the core answered (a watch event or the result of an action) replaces the one shown. */
export function applySyncStatus(status: SyncStatus): void {
  useSync.setState({ status })
}

/**
 * Follows `sync.watch` once, whoever asks first (the sidebar does at start). The bridge re-attaches
 * it after a reconnect; if the core ends or refuses it, it is started again after a pause, and the
 * last status stays on screen meanwhile.
 */
export function watchSync(): void {
  if (handle) return
  handle = bridge().stream(
    'sync.watch',
    {},
    {
      // A burst of events (many changes counted at once) sets the state once, with the last.
      onEvents: (events) => {
        const last = events.at(-1)
        if (last) applySyncStatus(last)
      },
      onEnd: () => again(),
      onRefused: () => again()
    }
  )
}

function again() {
  handle = undefined
  clearTimeout(retry)
  retry = setTimeout(watchSync, 10_000)
}

/** Asks the core once (Settings opens with the status before any event arrives). */
export async function loadSyncStatus(): Promise<void> {
  const result = await bridge().call('sync.status', {})
  if (result.ok) applySyncStatus(result.value)
}
