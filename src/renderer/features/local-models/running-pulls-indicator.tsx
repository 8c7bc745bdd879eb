import { useEffect } from 'react'
import { useTranslation } from 'react-i18next'
import { percent } from '../../../shared/local/format'
import { runningPulls, usePulls } from './pulls-store'
import { useShallow } from 'zustand/react/shallow'
import { Download } from 'lucide-react'

/** For the sidebar: the pulls still running, each with a thin bar; nothing when none run. */
export function RunningPullsIndicator({ compact = false }: { compact?: boolean }) {
  const { t } = useTranslation()
  const pulls = usePulls(useShallow(runningPulls))
  // Pulls started before a reload (or from another window) are picked up here, page or not.
  useEffect(() => void usePulls.getState().sync(), [])
  if (pulls.length === 0) return null
  if (compact) {
    // The collapsed sidebar: one icon and the overall share done.
    const total = pulls.reduce((sum, p) => sum + percent(p.fraction), 0) / pulls.length
    return (
      <a
        href="#/local-models"
        data-testid="sidebar-pulls"
        title={`${t('local.downloads')}: ${pulls.map((p) => p.model).join(', ')}`}
        className="flex flex-col items-center gap-0.5 rounded-md py-1.5 text-[10px] text-zinc-600 tabular-nums hover:bg-zinc-200/60 dark:text-zinc-300 dark:hover:bg-zinc-800/60"
      >
        <Download aria-hidden className="size-4" />
        {total.toFixed(0)}%
      </a>
    )
  }
  return (
    <a href="#/local-models" data-testid="sidebar-pulls" className="block space-y-1.5 rounded-md px-3 py-2 text-xs text-zinc-600 hover:bg-zinc-200/60 dark:text-zinc-300 dark:hover:bg-zinc-800/60">
      <div className="font-medium">{t('local.downloads')}</div>
      {pulls.map((pull) => (
        <div key={pull.id} title={pull.model}>
          <div className="flex justify-between gap-2">
            <span className="truncate font-mono">{pull.model}</span>
            <span className="tabular-nums">{percent(pull.fraction).toFixed(0)}%</span>
          </div>
          <div className="mt-0.5 h-1 overflow-hidden rounded bg-zinc-200 dark:bg-zinc-800">
            <div className="h-full bg-accent" style={{ width: `${percent(pull.fraction)}%` }} />
          </div>
        </div>
      ))}
    </a>
  )
}
