import { useCallback, useEffect, useState } from 'react'
import { leaveReloadNote, takeReloadNote } from './reload-note'
import { useTranslation } from 'react-i18next'
import type { BackupSummary } from '../../../shared/bridge/procedures/data'
import type { AppError } from '../../../shared/errors/app-error'
import { bridge } from '../../stores/app-store'
import { DataError } from '../data/data-error'
import { formatBytes } from '../data/format'
import { useSync } from '../sync/sync-store'

/** Shown once after the reload that follows a restore (every screen then reads the restored data). */
export const RESTORED_NOTE_KEY = 'switchboard.restoredNote'

/**
 * The backups the core keeps: when, why, how big and what each holds; back up now;
 * restore one (the core first keeps a copy of the current data as a backup of its own).
 */
export function BackupsList({ refreshKey, onChange }: { refreshKey?: number; onChange?(): void }) {
  const { t } = useTranslation()
  const [backups, setBackups] = useState<BackupSummary[]>()
  const [busy, setBusy] = useState(false)
  const [confirming, setConfirming] = useState<number>()
  const [error, setError] = useState<AppError>()
  const [note, setNote] = useState<string | undefined>(() => takeReloadNote(RESTORED_NOTE_KEY))
  // With sync on, newer changes from any device still win after a restore (docs/sync.md): said before it is confirmed.
  const syncOn = useSync((s) => s.status !== undefined && s.status.state !== 'off')
  const load = useCallback(() => {
    void bridge()
      .call('data.backups.list', {})
      .then((result) => setBackups(result.ok ? result.value : []))
  }, [])
  useEffect(load, [load, refreshKey])

  const backUpNow = async () => {
    setBusy(true)
    setError(undefined)
    const r = await bridge().call('data.backups.create', {})
    setBusy(false)
    if (!r.ok) return setError(r.error)
    setNote(t('dataPage.backedUp'))
    load()
    onChange?.()
  }
  const restore = async (at: number) => {
    setConfirming(undefined)
    setBusy(true)
    setError(undefined)
    const r = await bridge().call('data.backups.restore', { at })
    setBusy(false)
    if (!r.ok) return setError(r.error)
    leaveReloadNote(RESTORED_NOTE_KEY, t('dataPage.restored', { date: new Date(r.value.restored.at).toLocaleString(), copy: new Date(r.value.safetyCopy.at).toLocaleString() }))
    // Every screen holds data read before the restore: start them all again from the restored data.
    location.reload()
  }

  if (!backups) return null
  const holds = (b: BackupSummary) => (b.holds ? t('backups.holds', {
          conversations: t('backups.conversations', { count: b.holds.conversations }),
          messages: t('backups.messages', { count: b.holds.messages }),
          agents: t('backups.agents', { count: b.holds.agents })
        }) : t('backups.unreadable'))
  return (
    <div className="space-y-2" data-testid="backups">
      <div className="flex items-center gap-3">
        <h3 className="text-sm font-medium">{t('backups.title')}</h3>
        <button disabled={busy} onClick={() => void backUpNow()} className="rounded-md border border-zinc-300 px-3 py-1 text-sm disabled:opacity-50 dark:border-zinc-700" data-testid="backup-now">
          {t('dataPage.backUpNow')}
        </button>
      </div>
      {note && (
        <p className="text-sm" role="status" data-testid="backups-note">
          {note}
        </p>
      )}
      {error && <DataError error={error} onClose={() => setError(undefined)} />}
      {backups.length === 0 ? (
        <p className="text-sm text-zinc-500" data-testid="backups-empty">
          {t('backups.none')}
        </p>
      ) : (
        <ul className="divide-y divide-zinc-200 text-sm dark:divide-zinc-800">
          {backups.map((b) => (
            <li key={b.at} className="flex flex-wrap items-center justify-between gap-2 py-1" data-testid="backup-item" data-at={b.at}>
              <span>
                <time dateTime={new Date(b.at).toISOString()}>{new Date(b.at).toLocaleString()}</time> · {t(`backups.reasons.${b.reason}`)}
              </span>
              <span className="flex items-center gap-2 text-zinc-500">
                <span data-testid="backup-holds">
                  {holds(b)}
                  {b.size !== undefined && ` · ${formatBytes(b.size)}`}
                </span>
                {confirming === b.at ? (
                  <span className="flex items-center gap-2 text-zinc-800 dark:text-zinc-200" data-testid="backup-confirm">
                    {t('dataPage.restoreConfirm')}
                    {syncOn && <span data-testid="backup-confirm-sync">{t('dataPage.restoreWithSync')}</span>}
                    <button onClick={() => void restore(b.at)} className="rounded-md bg-red-600 px-2 py-0.5 text-xs text-white" data-testid="backup-restore-confirm">
                      {t('dataPage.restore')}
                    </button>
                    <button onClick={() => setConfirming(undefined)} className="text-xs underline">
                      {t('dataTransfer.cancel')}
                    </button>
                  </span>
                ) : (
                  <button disabled={busy || !b.holds} onClick={() => setConfirming(b.at)} className="text-xs underline disabled:opacity-50" data-testid="backup-restore">
                    {t('dataPage.restore')}
                  </button>
                )}
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
