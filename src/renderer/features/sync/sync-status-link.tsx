import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { AlertTriangle, CloudCheck, CloudOff, Lock, PauseCircle, RefreshCw } from 'lucide-react'
import type { SyncState } from '../../../shared/bridge/procedures/sync'
import { refused, statusPhrase, statusTone, type StatusTone } from './sync-status-text'
import { useSync, watchSync } from './sync-store'

const ICONS: Record<Exclude<SyncState, 'off'>, typeof CloudCheck> = {
  idle: CloudCheck,
  syncing: RefreshCw,
  offline: CloudOff,
  paused: PauseCircle,
  locked: Lock,
  error: AlertTriangle
}
const TONES: Record<StatusTone, string> = {
  ok: 'text-emerald-600 dark:text-emerald-400',
  busy: 'text-accent',
  waiting: 'text-amber-600 dark:text-amber-400',
  problem: 'text-red-600 dark:text-red-400'
}

export const SYNC_SETTINGS_HASH = '#/settings/sync'

/**
 * For the sidebar: sync's state in a word or three, a link to Settings → Sync; nothing while sync
 * is off. Only this component follows the status, so a change re-renders it and not the sidebar.
 */
export function SyncStatusLink({ compact = false }: { compact?: boolean }) {
  const { t } = useTranslation()
  const status = useSync((s) => s.status)
  useEffect(() => watchSync(), [])
  // "will retry in 30 s" counts down while offline; no clock runs otherwise.
  const [now, setNow] = useState(() => Date.now())
  const counting = status?.state === 'offline' && status.nextRetryAt !== undefined
  useEffect(() => {
    if (!counting) return
    setNow(Date.now())
    const timer = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(timer)
  }, [counting])
  if (!status) return null
  const phrase = statusPhrase(status, now)
  if (!phrase || status.state === 'off') return null
  const label = t(phrase.key, phrase.values ?? {})
  const Icon = refused(status) ? AlertTriangle : ICONS[status.state]
  // The error's fix, where the user can act on it: in the tooltip and for screen readers.
  const detail = (status.state === 'error' || refused(status)) && status.error ? `${label}: ${status.error.message}${status.error.fix ? ` ${status.error.fix}` : ''}` : label
  return (
    <a
      href={SYNC_SETTINGS_HASH}
      data-testid="sidebar-sync"
      data-state={status.state}
      title={`${t('sync.openSettings')} — ${detail}`}
      aria-label={`${t('sync.title')}: ${detail}`}
      onClick={() => {
        // Already on this address: no hash change, so bring the section into view here.
        if (location.hash === SYNC_SETTINGS_HASH) document.getElementById('settings-sync')?.scrollIntoView({ block: 'start' })
      }}
      className={`flex items-center gap-2 rounded-md py-1.5 text-xs text-zinc-600 hover:bg-zinc-200/60 dark:text-zinc-300 dark:hover:bg-zinc-800/60 ${compact ? 'justify-center' : 'px-3'}`}
    >
      <Icon aria-hidden className={`size-4 shrink-0 ${TONES[statusTone(status)]} ${status.state === 'syncing' ? 'motion-safe:animate-spin' : ''}`} />
      {!compact && <span className="truncate tabular-nums">{label}</span>}
    </a>
  )
}
