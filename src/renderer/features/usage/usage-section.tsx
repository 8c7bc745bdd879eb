import { useEffect, useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { UsageSummaryRow } from '../../../shared/data/usage-log'
import { bridge } from '../../stores/app-store'

type Group = 'day' | 'provider' | 'model' | 'scene'
const GROUPS: Group[] = ['day', 'provider', 'model', 'scene']
const DAY = 86_400_000

const symbol = (currency: string | undefined) => (currency === 'CNY' ? '¥' : currency === 'USD' || !currency ? '$' : `${currency} `)
/** The same rounding as a message's cost line, so the totals read the same as the messages. */
export const formatUsageCost = (total: number, currency: string | undefined) => `${symbol(currency)}${total < 0.01 ? total.toFixed(6) : total.toFixed(4)}`

/** Local date input value (yyyy-mm-dd) → ms at local midnight. */
const dayStart = (value: string) => new Date(`${value}T00:00:00`).getTime()
const toInput = (ms: number) => {
  const d = new Date(ms)
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`
}

/** A CSV cell: quoted when it holds a comma, quote or line break (RFC 4180). */
const csvCell = (v: string | number) => (/[",\n\r]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v))

/**
 * Usage and cost from the usage log: tokens and cost per day, provider, model or scene, in the
 * currency each model is priced in (one row per key and currency), over a date range, with CSV.
 */
export function UsageSection() {
  const { t } = useTranslation()
  const [group, setGroup] = useState<Group>('day')
  const [from, setFrom] = useState(() => toInput(Date.now() - 29 * DAY))
  const [to, setTo] = useState(() => toInput(Date.now()))
  const [rows, setRows] = useState<UsageSummaryRow[]>()
  useEffect(() => {
    let live = true
    void bridge()
      .call('data.usage.summary', { group, from: dayStart(from), to: dayStart(to) + DAY - 1 })
      .then((result) => live && setRows(result.ok ? result.value : []))
    return () => {
      live = false
    }
  }, [group, from, to])
  const totals = useMemo(() => {
    const byCurrency = new Map<string, { cost: number; tokens: number; calls: number }>()
    for (const r of rows ?? []) {
      const key = r.currency ?? 'USD'
      const total = byCurrency.get(key) ?? { cost: 0, tokens: 0, calls: 0 }
      total.cost += r.cost
      total.tokens += r.totalTokens
      total.calls += r.calls
      byCurrency.set(key, total)
    }
    return [...byCurrency]
  }, [rows])

  const exportCsv = () => {
    const lines = [[group, 'calls', 'tokens', 'cost', 'currency'], ...(rows ?? []).map((r) => [r.key, r.calls, r.totalTokens, r.cost, r.currency ?? 'USD'])]
    const blob = new Blob([lines.map((l) => l.map(csvCell).join(',')).join('\r\n') + '\r\n'], { type: 'text/csv' })
    const a = document.createElement('a')
    a.href = URL.createObjectURL(blob)
    a.download = `switchboard-usage-${group}-${from}-${to}.csv`
    a.click()
    setTimeout(() => URL.revokeObjectURL(a.href), 1000)
  }

  const input = 'rounded-md border border-zinc-300 bg-transparent px-2 py-1 text-sm dark:border-zinc-700'
  return (
    <section className="space-y-3" data-testid="usage-section">
      <h2 className="text-sm font-semibold tracking-wide text-zinc-500 uppercase">{t('usage.title')}</h2>
      <div className="flex flex-wrap items-end gap-2 text-sm">
        <label className="flex flex-col gap-1">
          {t('usage.from')}
          <input type="date" className={input} value={from} onChange={(e) => e.target.value && setFrom(e.target.value)} data-testid="usage-from" />
        </label>
        <label className="flex flex-col gap-1">
          {t('usage.to')}
          <input type="date" className={input} value={to} onChange={(e) => e.target.value && setTo(e.target.value)} data-testid="usage-to" />
        </label>
        <label className="flex flex-col gap-1">
          {t('usage.groupBy')}
          <select className={input} value={group} onChange={(e) => setGroup(e.target.value as Group)} data-testid="usage-group">
            {GROUPS.map((g) => (
              <option key={g} value={g}>
                {t(`usage.groups.${g}`)}
              </option>
            ))}
          </select>
        </label>
        <button className="rounded-md border border-zinc-300 px-3 py-1 dark:border-zinc-700" onClick={exportCsv} disabled={!rows?.length} data-testid="usage-csv">
          {t('usage.exportCsv')}
        </button>
      </div>
      <table className="w-full text-left text-sm" data-testid="usage-table">
        <thead className="text-xs text-zinc-500">
          <tr>
            <th className="py-1">{t(`usage.groups.${group}`)}</th>
            <th className="py-1 text-right">{t('usage.calls')}</th>
            <th className="py-1 text-right">{t('usage.tokens')}</th>
            <th className="py-1 text-right">{t('usage.cost')}</th>
          </tr>
        </thead>
        <tbody>
          {(rows ?? []).map((r) => (
            <tr key={`${r.key}\u0000${r.currency ?? ''}`} className="border-t border-zinc-200 dark:border-zinc-800" data-testid="usage-row">
              <td className="py-1">{r.key}</td>
              <td className="py-1 text-right">{r.calls.toLocaleString()}</td>
              <td className="py-1 text-right">{r.totalTokens.toLocaleString()}</td>
              <td className="py-1 text-right">{formatUsageCost(r.cost, r.currency)}</td>
            </tr>
          ))}
          {rows && rows.length === 0 && (
            <tr>
              <td colSpan={4} className="py-2 text-zinc-500" data-testid="usage-empty">
                {t('usage.empty')}
              </td>
            </tr>
          )}
        </tbody>
        <tfoot className="font-semibold">
          {totals.map(([currency, total]) => (
            <tr key={currency} className="border-t-2 border-zinc-300 dark:border-zinc-700" data-testid={`usage-total-${currency}`}>
              <td className="py-1">{t('usage.total', { currency })}</td>
              <td className="py-1 text-right">{total.calls.toLocaleString()}</td>
              <td className="py-1 text-right">{total.tokens.toLocaleString()}</td>
              <td className="py-1 text-right" data-testid="usage-total-cost">
                {formatUsageCost(total.cost, currency)}
              </td>
            </tr>
          ))}
        </tfoot>
      </table>
    </section>
  )
}
