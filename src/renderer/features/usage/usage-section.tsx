import { lazy, Suspense, useEffect, useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { USAGE_KINDS, type UsageSummaryRow } from '../../../shared/data/usage-log'
import { DEFAULT_USD_TO_CNY } from '../../../shared/pricing/currency'
import { bridge } from '../../stores/app-store'
import { providerActions, useProviders } from '../providers/providers-store'
import { formatUsageCost, usageCsv } from './usage-format'

// chart.js comes in its own chunk, only when the usage section is shown.
const UsageChart = lazy(() => import('./usage-chart'))

type Group = 'day' | 'kind' | 'provider' | 'model' | 'scene' | 'agent' | 'apiKey'
const GROUPS: Group[] = ['day', 'kind', 'provider', 'model', 'scene', 'agent', 'apiKey']
const DAY = 86_400_000

/** Local date input value (yyyy-mm-dd) → ms at local midnight. */
const dayStart = (value: string) => new Date(`${value}T00:00:00`).getTime()
const toInput = (ms: number) => {
  const d = new Date(ms)
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`
}

/**
 * Usage and cost from the usage log: tokens and cost per day, kind of call (chat, embeddings,
 * rerank, speech, images), provider, model, scene or agent,
 * in the currency each model is priced in (one row per key and currency) and in USD (CNY at the
 * pricing module's fixed rate), over a date range, with a chart and CSV.
 */
export function UsageSection() {
  const { t } = useTranslation()
  const [group, setGroup] = useState<Group>('day')
  const [from, setFrom] = useState(() => toInput(Date.now() - 29 * DAY))
  const [to, setTo] = useState(() => toInput(Date.now()))
  // Rows are kept with the question they answer: until the answer to a new grouping or range is
  // there, the last one's rows are not shown (or exported) under the new one's names.
  const [answer, setAnswer] = useState<{ query: string; rows: UsageSummaryRow[] }>()
  const query = `${group} ${from} ${to}`
  const rows = answer?.query === query ? answer.rows : undefined
  const [agents, setAgents] = useState<Map<string, string>>(new Map())
  // Providers by the names the rest of the app gives them ("OpenAI", not "openai").
  const providers = useProviders((s) => s.providers)
  const loaded = useProviders((s) => s.loaded)
  const providerNames = useMemo(() => new Map(providers.map((p) => [p.id, p.name])), [providers])
  useEffect(() => {
    if (group === 'provider' && !loaded) void providerActions.load()
  }, [group, loaded])
  useEffect(() => {
    let live = true
    // The user's calendar days: the offset of the range's start (a DST change inside the range shifts by an hour at most).
    const utcOffsetMinutes = -new Date(dayStart(from)).getTimezoneOffset()
    void bridge()
      .call('data.usage.summary', { group, from: dayStart(from), to: dayStart(to) + DAY, utcOffsetMinutes })
      .then((result) => live && setAnswer({ query, rows: result.ok ? result.value : [] }))
    if (group === 'agent')
      void bridge()
        .call('data.agents.list', {})
        .then((r) => live && r.ok && setAgents(new Map(r.value.map((a) => [a.id, a.name]))))
    // The local API's keys by name (their calls are the only ones with a key).
    if (group === 'apiKey')
      void bridge()
        .call('localApi.status', {})
        .then((r) => live && r.ok && setAgents(new Map(r.value.keys.map((k) => [k.id, k.name]))))
    return () => {
      live = false
    }
  }, [group, from, to, query])
  const labelled = useMemo(() => {
    const list = (rows ?? []).map((r) => ({
      ...r,
      label:
        group === 'agent'
          ? r.key
            ? (agents.get(r.key) ?? t('usage.deletedAgent'))
            : t('usage.noAgent')
          : group === 'apiKey'
            ? r.key
              ? (agents.get(r.key) ?? r.key)
              : t('usage.noApiKey')
            : group === 'provider' && r.key
              ? (providerNames.get(r.key) ?? r.key)
              : group === 'kind' && (USAGE_KINDS as readonly string[]).includes(r.key)
                ? t(`usage.kinds.${r.key}`)
                : r.key || t('usage.none')
    }))
    // One key can have a row per currency (and one for calls without a price): those rows say which.
    const seen = new Map<string, number>()
    for (const r of list) seen.set(r.label, (seen.get(r.label) ?? 0) + 1)
    const told = list.map((r) => ((seen.get(r.label) ?? 0) > 1 ? { ...r, label: `${r.label} · ${r.currency ?? (r.cost > 0 ? 'USD' : t('usage.unpriced'))}`, plain: r.label } : r))
    // Days read in order; other keys by how much they were used.
    return group === 'day' ? told.sort((a, b) => a.key.localeCompare(b.key)) : told
  }, [rows, group, agents, providerNames, t])
  const totals = useMemo(() => {
    const byCurrency = new Map<string, { cost: number; costUsd: number; tokens: number; calls: number }>()
    for (const r of rows ?? []) {
      const key = r.currency ?? 'USD'
      const total = byCurrency.get(key) ?? { cost: 0, costUsd: 0, tokens: 0, calls: 0 }
      total.cost += r.cost
      total.costUsd += r.costUsd
      total.tokens += r.totalTokens
      total.calls += r.calls
      byCurrency.set(key, total)
    }
    return [...byCurrency]
  }, [rows])
  const grandUsd = totals.reduce((a, [, x]) => a + x.costUsd, 0)
  const chart = useMemo(() => {
    // One bar per key: rows of the same key in two currencies are added up in USD.
    const byKey = new Map<string, { label: string; costUsd: number; tokens: number }>()
    for (const r of labelled) {
      const entry = byKey.get(r.key) ?? { label: r.label, costUsd: 0, tokens: 0 }
      entry.costUsd += r.costUsd
      entry.tokens += r.totalTokens
      byKey.set(r.key, entry)
    }
    const list = [...byKey.values()].slice(0, 60)
    return { labels: list.map((e) => e.label), costUsd: list.map((e) => Number(e.costUsd.toFixed(6))), tokens: list.map((e) => e.tokens) }
  }, [labelled])

  const exportCsv = () => {
    // The CSV has a currency column of its own: its names stay plain, and providers keep their ids there (as models do).
    const blob = new Blob([usageCsv(group, labelled.map((r) => (group === 'provider' && r.key ? { ...r, label: r.key } : 'plain' in r ? { ...r, label: r.plain } : r)))], { type: 'text/csv' })
    const a = document.createElement('a')
    a.href = URL.createObjectURL(blob)
    a.download = `switchboard-usage-${group}-${from}-${to}.csv`
    a.click()
    setTimeout(() => URL.revokeObjectURL(a.href), 1000)
  }

  const input = 'rounded-md border border-zinc-300 bg-transparent px-2 py-1 text-sm dark:border-zinc-700'
  return (
    <section className="space-y-3" data-testid="usage-section" aria-label={t('usage.title')}>
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
      {labelled.length > 0 && (
        <Suspense fallback={<div className="h-56" />}>
          <UsageChart labels={chart.labels} costUsd={chart.costUsd} tokens={chart.tokens} costLabel={t('usage.costUsd')} tokensLabel={t('usage.tokens')} timeline={group === 'day'} />
        </Suspense>
      )}
      <table className="w-full text-left text-sm" data-testid="usage-table" aria-busy={!rows}>
        <thead className="text-xs text-zinc-500">
          <tr>
            <th className="py-1">{t(`usage.groups.${group}`)}</th>
            <th className="py-1 text-right">{t('usage.calls')}</th>
            <th className="py-1 text-right">{t('usage.tokens')}</th>
            <th className="py-1 text-right">{t('usage.cost')}</th>
            <th className="py-1 text-right">{t('usage.costUsd')}</th>
          </tr>
        </thead>
        <tbody>
          {labelled.map((r) => (
            <tr key={`${r.key}\u0000${r.currency ?? ''}`} className="border-t border-zinc-200 dark:border-zinc-800" data-testid="usage-row">
              <td className="py-1">{r.label}</td>
              <td className="py-1 text-right">{r.calls.toLocaleString()}</td>
              <td className="py-1 text-right">{r.totalTokens.toLocaleString()}</td>
              <td className="py-1 text-right">{formatUsageCost(r.cost, r.currency)}</td>
              <td className="py-1 text-right">{formatUsageCost(r.costUsd, 'USD')}</td>
            </tr>
          ))}
          {rows && rows.length === 0 && (
            <tr>
              <td colSpan={5} className="py-2 text-zinc-500" data-testid="usage-empty">
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
              <td className="py-1 text-right">{formatUsageCost(total.costUsd, 'USD')}</td>
            </tr>
          ))}
          {/* With USD as the only currency the row above is already the total in USD. */}
          {totals.length > 0 && !(totals.length === 1 && totals[0]![0] === 'USD') && (
            <tr data-testid="usage-total-usd">
              <td className="py-1" colSpan={4}>
                {t('usage.totalUsd')}
              </td>
              <td className="py-1 text-right" data-testid="usage-total-usd-cost">
                {formatUsageCost(grandUsd, 'USD')}
              </td>
            </tr>
          )}
        </tfoot>
      </table>
      <p className="text-xs text-zinc-500">{t('usage.rateNote', { rate: DEFAULT_USD_TO_CNY })}</p>
    </section>
  )
}
