import { useTranslation } from 'react-i18next'
import { formatBytes, formatDuration, formatRate, percent } from '../../../shared/local/format'
import { isFinalPullPhase, type PullSnapshot } from '../../../shared/local/pull-progress'
import { usePulls } from './pulls-store'
import { ProgressBar } from '../../components/progress-bar'

export function PullCard({ pull }: { pull: PullSnapshot }) {
  const { t } = useTranslation()
  const { cancel, dismiss, start } = usePulls()
  const final = isFinalPullPhase(pull.phase)
  const pct = percent(pull.fraction)
  const barColour = pull.phase === 'error' ? 'bg-red-500' : pull.phase === 'cancelled' ? 'bg-zinc-400' : pull.phase === 'success' ? 'bg-emerald-500' : 'bg-accent'
  return (
    <li data-testid={`pull-card-${pull.model}`} data-phase={pull.phase} className="rounded-lg border border-zinc-200 p-3 dark:border-zinc-800">
      <div className="flex items-baseline gap-3">
        <span className="font-mono text-sm font-medium">{pull.model}</span>
        <span className="text-xs text-zinc-500">{t(`local.phase.${pull.phase}`)}</span>
        <span className="ml-auto text-xs tabular-nums text-zinc-600 dark:text-zinc-300">{pct.toFixed(1)}%</span>
      </div>
      <ProgressBar percent={pct} label={pull.model} className="mt-2 h-2 rounded-full" fill={`${barColour} transition-[width] duration-100`} testId="pull-progress" />
      <div className="mt-2 flex flex-wrap items-center gap-x-4 gap-y-1 text-xs text-zinc-600 dark:text-zinc-400">
        {pull.totalBytes > 0 && (
          <span data-testid="pull-bytes" className="tabular-nums">
            {t('local.bytes', { done: formatBytes(pull.completedBytes), total: formatBytes(pull.totalBytes) })}
          </span>
        )}
        {!final && pull.bytesPerSecond > 0 && <span className="tabular-nums">{t('local.speed', { speed: formatRate(pull.bytesPerSecond) })}</span>}
        {!final && pull.etaSeconds !== undefined && <span className="tabular-nums">{t('local.timeLeft', { time: formatDuration(pull.etaSeconds) })}</span>}
        <span className="ml-auto flex gap-2">
          {!final && (
            <button data-testid="pull-cancel" onClick={() => void cancel(pull.id)} className="rounded border border-zinc-300 px-2 py-0.5 dark:border-zinc-700">
              {t('local.cancelPull')}
            </button>
          )}
          {final && pull.phase !== 'success' && !pull.error?.notFound && (
            <button data-testid="pull-retry" onClick={() => void start(pull.model, { insecure: pull.insecure })} className="rounded bg-accent px-2 py-0.5 text-white">
              {t('local.retry')}
            </button>
          )}
          {final && (
            <button data-testid="pull-dismiss" onClick={() => void dismiss(pull.id)} className="rounded px-2 py-0.5 text-zinc-500 hover:text-zinc-800 dark:hover:text-zinc-200">
              {t('local.dismiss')}
            </button>
          )}
        </span>
      </div>
      {pull.previousAttempt && !pull.resumed && !final && (
        <p data-testid="pull-resume-notice" className="mt-2 text-xs text-sky-700 dark:text-sky-400">
          {t('local.resuming')}
        </p>
      )}
      {pull.resumed && (
        <p data-testid="pull-resume-notice" className="mt-2 text-xs text-sky-700 dark:text-sky-400">
          {t('local.resumed', { bytes: formatBytes(pull.resumedBytes) })}
        </p>
      )}
      {pull.disk?.willNotFit && (
        <p role="alert" className="mt-2 text-xs text-amber-700 dark:text-amber-400">
          {t('local.willNotFit', { left: formatBytes(pull.totalBytes - pull.completedBytes), free: formatBytes(pull.disk.freeBytes) })}
        </p>
      )}
      {pull.phase === 'error' && pull.error && (
        <p role="alert" data-testid="pull-error" className="mt-2 text-xs text-red-700 dark:text-red-400">
          {pull.error.notFound ? t('polish.pullNotFound', { model: pull.model }) : pull.error.message}
        </p>
      )}
      {pull.layers.length > 0 && (
        <details className="mt-2 text-xs">
          <summary className="cursor-pointer text-zinc-500 select-none">{t('local.layers', { count: pull.layers.length })}</summary>
          <ul className="mt-1 space-y-1">
            {pull.layers.map((layer) => (
              <li key={layer.digest} className="flex items-center gap-2 font-mono">
                <span className="w-28 truncate text-zinc-500">{layer.digest.replace('sha256:', '').slice(0, 12) || '—'}</span>
                <span className="h-1 flex-1 overflow-hidden rounded bg-zinc-200 dark:bg-zinc-800">
                  <span
                    className="block h-full bg-zinc-500"
                    style={{ width: `${layer.totalBytes > 0 ? Math.min(100, (layer.completedBytes / layer.totalBytes) * 100) : 0}%` }}
                  />
                </span>
                <span className="w-40 text-right tabular-nums text-zinc-500">
                  {formatBytes(layer.completedBytes)} / {formatBytes(layer.totalBytes)}
                </span>
              </li>
            ))}
          </ul>
        </details>
      )}
    </li>
  )
}
