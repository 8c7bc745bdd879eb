// Pure wording of the sync status (sidebar and Settings → Sync), tested without a page. Kept free of
// the store schema so the sidebar, which loads with the window, stays small.
import type { SyncStatus } from '../../../shared/bridge/procedures/sync'
import { percent } from '../../../shared/local/format'
import { transferMegabytes } from '../../../shared/sync/transfer'

/** An i18n key with its values; the caller translates it. */
export interface Phrase {
  key: string
  values?: Record<string, string | number>
}

/** How full the history download's bar is (0–100): rounded down, so it is not full before the download is. */
export const transferPercent = (transfer: NonNullable<SyncStatus['transfer']>) => (transfer.total > 0 ? percent(transfer.done / transfer.total) : 0)

/** What the sidebar says, or nothing when sync is off (not set up). */
export function statusPhrase(status: Pick<SyncStatus, 'state' | 'pendingChanges' | 'syncingChanges' | 'nextRetryAt' | 'transfer' | 'error'>, now: number): Phrase | undefined {
  switch (status.state) {
    case 'off':
      return undefined
    case 'paused':
      return { key: 'sync.status.paused' }
    case 'idle':
      // A round that went through with objects of the store refused (they did not open): a warning, not "Synced".
      if (refused(status)) return { key: 'sync.status.refused' }
      // Changes waiting for the next round are not "synced" yet.
      return status.pendingChanges > 0 ? { key: 'sync.status.pending', values: { count: status.pendingChanges } } : { key: 'sync.status.synced' }
    case 'syncing': {
      const transfer = status.transfer
      if (transfer && transfer.total > 0 && transfer.done < transfer.total) {
        return { key: 'sync.status.syncingBytes', values: transferMegabytes(transfer) }
      }
      const count = status.syncingChanges ?? status.pendingChanges
      return count > 0 ? { key: 'sync.status.syncingCount', values: { count } } : { key: 'sync.status.syncing' }
    }
    case 'offline': {
      const seconds = retryInSeconds(status.nextRetryAt, now)
      return seconds === undefined ? { key: 'sync.status.offline' } : { key: 'sync.status.offlineRetry', values: { count: seconds } }
    }
    case 'locked':
      return { key: 'sync.status.locked' }
    case 'error':
      return { key: 'sync.status.error' }
  }
}

/** Whole seconds until the next retry (at least 1), or undefined when it is due or unknown. */
export function retryInSeconds(nextRetryAt: number | undefined, now: number): number | undefined {
  if (nextRetryAt === undefined) return undefined
  const ms = nextRetryAt - now
  return ms <= 0 ? undefined : Math.ceil(ms / 1000)
}

/** Synced, but objects of the store were refused on the way (SyncTampered): the status carries their names and the fix. */
export const refused = (status: Pick<SyncStatus, 'state' | 'error'>) => status.state === 'idle' && status.error !== undefined

/** The tone of the status: how the sidebar colours its icon. */
export type StatusTone = 'ok' | 'busy' | 'waiting' | 'problem'
export function statusTone(status: Pick<SyncStatus, 'state' | 'error'>): StatusTone {
  const { state } = status
  if (state === 'idle') return refused(status) ? 'waiting' : 'ok'
  if (state === 'syncing') return 'busy'
  if (state === 'error' || state === 'locked') return 'problem'
  return 'waiting'
}

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/** "just now", "5 minutes ago", "3 hours ago", "2 days ago"; a time ahead of this clock is "just now". */
export function relativeTime(at: number, now: number): Phrase {
  const ago = now - at
  if (ago < MINUTE) return { key: 'sync.time.justNow' }
  if (ago < HOUR) return { key: 'sync.time.minutes', values: { count: Math.floor(ago / MINUTE) } }
  if (ago < DAY) return { key: 'sync.time.hours', values: { count: Math.floor(ago / HOUR) } }
  return { key: 'sync.time.days', values: { count: Math.floor(ago / DAY) } }
}

/**
 * The last merge, worded so a conflict never reads as loss: records changed on two devices keep
 * the later edit (the other is in the history), records rescued from a delete are "recovered".
 */
export function mergePhrases(merge: Omit<NonNullable<SyncStatus['lastMerge']>, 'at'>): Phrase[] {
  return [
    { key: 'sync.merge.applied', values: { count: merge.applied } },
    { key: 'sync.merge.conflicts', values: { count: merge.conflicts } },
    { key: 'sync.merge.recovered', values: { count: merge.recovered } }
  ]
}

export type Strength = 'tooShort' | 'weak' | 'fair' | 'strong'

/**
 * A rough strength hint for the sync passphrase (the key is derived with scrypt, but a short or
 * one-kind passphrase is still guessable offline by whoever holds the store's files).
 */
export function passphraseStrength(passphrase: string): Strength {
  if (passphrase.length < 8) return 'tooShort'
  const kinds = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((re) => re.test(passphrase)).length
  const words = passphrase.trim().split(/\s+/).length
  if (passphrase.length >= 20 || (passphrase.length >= 14 && (kinds >= 3 || words >= 3))) return 'strong'
  if (passphrase.length >= 12 || kinds >= 3) return 'fair'
  return 'weak'
}

/**
 * A round finished that brought changes from other devices: the pages showing stored data (the
 * conversation list, the open conversation) read it again. Not on the first status of a window,
 * which loads its data fresh anyway.
 */
export function mergedNewData(prev: Pick<SyncStatus, 'lastSyncedAt' | 'lastMerge'> | undefined, next: Pick<SyncStatus, 'lastSyncedAt' | 'lastMerge'> | undefined): boolean {
  if (!prev || !next || next.lastSyncedAt === undefined || next.lastSyncedAt === prev.lastSyncedAt) return false
  // The status keeps the last merge through later rounds that merged nothing: only a new one counts.
  return (next.lastMerge?.applied ?? 0) > 0 && next.lastMerge?.at !== prev.lastMerge?.at
}
