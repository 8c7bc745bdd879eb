import { useTranslation } from 'react-i18next'
import { formatBytes } from '../../../shared/local/format'
import { useLocalModels } from './local-models-store'

const th = 'px-3 py-2 text-left text-xs font-medium text-zinc-500'
const td = 'px-3 py-2 text-sm'

export function RunningModelsTable() {
  const { t, i18n } = useTranslation()
  const running = useLocalModels((s) => s.running)
  if (running.length === 0) return <p className="text-sm text-zinc-500">{t('local.noRunning')}</p>
  const time = new Intl.DateTimeFormat(i18n.language, { timeStyle: 'short' })
  return (
    <table className="w-full border-collapse" data-testid="running-models">
      <thead className="border-b border-zinc-200 dark:border-zinc-800">
        <tr>
          <th className={th}>{t('local.col.name')}</th>
          <th className={`${th} text-right`}>{t('local.col.memory')}</th>
          <th className={`${th} text-right`}>{t('local.col.gpu')}</th>
          <th className={`${th} text-right`}>{t('local.col.context')}</th>
          <th className={th}>{t('local.col.until')}</th>
        </tr>
      </thead>
      <tbody>
        {running.map((m) => (
          <tr key={m.name} data-testid={`running-row-${m.name}`} className="border-b border-zinc-100 dark:border-zinc-800/60">
            <td className={`${td} font-mono`}>{m.name}</td>
            <td className={`${td} text-right tabular-nums`}>{formatBytes(m.sizeBytes)}</td>
            <td className={`${td} text-right tabular-nums`}>{m.sizeBytes > 0 ? `${Math.round((m.sizeVramBytes / m.sizeBytes) * 100)}%` : '—'}</td>
            <td className={`${td} text-right tabular-nums`}>{m.contextLength?.toLocaleString(i18n.language) ?? '—'}</td>
            <td className={`${td} text-zinc-500`}>{m.expiresAt ? time.format(new Date(m.expiresAt)) : '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
