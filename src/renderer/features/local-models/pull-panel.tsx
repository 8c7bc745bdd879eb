import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { formatBytes } from '../../../shared/local/format'
import { useLocalModels } from './local-models-store'
import { usePulls } from './pulls-store'
import { PullCard } from './pull-card'

const MODEL_NAME = /^[\w.\-/:]+$/

export function PullPanel() {
  const { t } = useTranslation()
  const [name, setName] = useState('')
  const [insecure, setInsecure] = useState(false)
  const disk = useLocalModels((s) => s.disk)
  const { pulls, order, start, lastError } = usePulls()
  const valid = MODEL_NAME.test(name.trim())
  return (
    <div className="space-y-3">
      <form
        className="flex flex-wrap items-center gap-2"
        onSubmit={(e) => {
          e.preventDefault()
          if (!valid) return
          void start(name.trim(), { insecure }).then((snap) => snap && setName(''))
        }}
      >
        <input
          type="search"
          data-testid="pull-input"
          aria-label={t('local.pullPlaceholder')}
          placeholder={t('local.pullPlaceholder')}
          value={name}
          onChange={(e) => setName(e.target.value)}
          className="w-80 rounded-md border border-zinc-300 bg-transparent px-3 py-1.5 font-mono text-sm dark:border-zinc-700 dark:bg-zinc-900"
        />
        <button type="submit" data-testid="pull-submit" disabled={!valid} className="rounded-md bg-accent px-3 py-1.5 text-sm text-white disabled:opacity-50">
          {t('local.pull')}
        </button>
        <label className="flex items-center gap-1.5 text-xs text-zinc-600 dark:text-zinc-400">
          <input type="checkbox" checked={insecure} onChange={(e) => setInsecure(e.target.checked)} />
          {t('local.insecure')}
        </label>
        <span className="ml-auto text-xs text-zinc-500" data-testid="disk-free">
          {disk ? t('local.freeDisk', { free: formatBytes(disk.freeBytes) }) : disk === null ? t('local.freeDiskUnknown') : ''}
        </span>
      </form>
      {lastError && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-400">
          {lastError.message}
        </p>
      )}
      {order.length > 0 && (
        <ul className="space-y-2" aria-label={t('local.downloads')}>
          {order.map((id) => {
            const pull = pulls[id]
            return pull ? <PullCard key={id} pull={pull} /> : null
          })}
        </ul>
      )}
    </div>
  )
}
