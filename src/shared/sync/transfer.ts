import type { SyncStatus } from '../bridge/procedures/sync'

/**
 * A history download told in megabytes (the sidebar, Settings → Sync and `switchboard sync
 * status`): with a decimal while the whole is small enough for a tenth to show movement; the
 * part done rounds down and stays a unit short of the whole until it is all there, so "118 of
 * 118 MB" is never read while the download still runs.
 */
export function transferMegabytes(transfer: NonNullable<SyncStatus['transfer']>): { done: number; total: number } {
  const unit = transfer.total < 10e6 ? 1e5 : 1e6
  const total = Math.round(transfer.total / unit)
  const done = transfer.done >= transfer.total ? total : Math.min(Math.floor(transfer.done / unit), Math.max(0, total - 1))
  return { done: (done * unit) / 1e6, total: (total * unit) / 1e6 }
}
