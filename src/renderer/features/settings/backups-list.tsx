import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { BackupSummary } from '../../../shared/bridge/procedures/data'
import { bridge } from '../../stores/app-store'

const size = (bytes: number) => (bytes > 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1e3))} kB`)

/** The backups the core keeps: when, why, how big and what each holds (issue 16). */
export function BackupsList() {
  const { t } = useTranslation()
  const [backups, setBackups] = useState<BackupSummary[]>()
  useEffect(() => {
    let live = true
    void bridge()
      .call('data.backups.list', {})
      .then((result) => live && setBackups(result.ok ? result.value : []))
    return () => {
      live = false
    }
  }, [])
  if (!backups) return null
  return (
    <div className="space-y-1" data-testid="backups">
      <h3 className="text-sm font-medium">{t('backups.title')}</h3>
      {backups.length === 0 ? (
        <p className="text-sm text-zinc-500" data-testid="backups-empty">
          {t('backups.none')}
        </p>
      ) : (
        <ul className="divide-y divide-zinc-200 text-sm dark:divide-zinc-800">
          {backups.map((b) => (
            <li key={b.at} className="flex flex-wrap justify-between gap-2 py-1" data-testid="backup-item">
              <span>
                <time dateTime={new Date(b.at).toISOString()}>{new Date(b.at).toLocaleString()}</time> · {t(`backups.reasons.${b.reason}`)}
              </span>
              <span className="text-zinc-500">
                {b.holds ? t('backups.holds', { conversations: b.holds.conversations, messages: b.holds.messages, agents: b.holds.agents }) : t('backups.unreadable')}
                {b.size !== undefined && ` · ${size(b.size)}`}
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
