import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { cacheHitRate, type UsageSummaryRow } from '../../../shared/data/usage-log'
import { bridge } from '../../stores/app-store'

/** "42.0% from cache", or nothing before any input was sent. */
export function CacheHit({ rate }: { rate: number | undefined }) {
  const { t } = useTranslation()
  if (rate === undefined) return null
  return <span className="text-zinc-500">{t('localApi.cacheHit', { percent: (rate * 100).toFixed(1) })}</span>
}

/** Calls through the local API per model, with each model's prompt-cache hit rate. */
export function LocalApiModelUsage({ refresh }: { refresh: unknown }) {
  const { t } = useTranslation()
  const [rows, setRows] = useState<UsageSummaryRow[]>([])
  useEffect(() => {
    let live = true
    void bridge()
      .call('data.usage.summary', { group: 'model', scene: 'Local API' })
      .then((r) => {
        if (live && r.ok) setRows(r.value)
      })
    return () => {
      live = false
    }
  }, [refresh])
  if (rows.length === 0) return null
  return (
    <>
      <h3 className="text-sm font-semibold">{t('localApi.byModel')}</h3>
      <ul className="divide-y divide-zinc-200 text-sm dark:divide-zinc-800" data-testid="local-api-models">
        {rows.map((r) => (
          <li key={`${r.key}\u0000${r.currency ?? ''}`} className="flex items-center gap-3 py-2">
            <span className="font-medium">{r.key}</span>
            <span className="text-zinc-500">{t('localApi.spent', { count: r.calls, usd: r.costUsd.toFixed(4) })}</span>
            <CacheHit rate={cacheHitRate(r)} />
          </li>
        ))}
      </ul>
    </>
  )
}
