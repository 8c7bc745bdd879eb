import type { UsageSummaryRow } from '../../../shared/data/usage-log'

const symbol = (currency: string | undefined) => (currency === 'CNY' ? '¥' : currency === 'USD' || !currency ? '$' : `${currency} `)

/** The same rounding as a message's cost line, so the totals read the same as the messages. */
export const formatUsageCost = (total: number, currency: string | undefined) => `${symbol(currency)}${total < 0.01 ? total.toFixed(6) : total.toFixed(4)}`

/** A CSV cell: quoted when it holds a comma, quote or line break (RFC 4180). */
export const csvCell = (v: string | number) => (/[",\n\r]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v))

/** The usage table as CSV: one line per row, the cost in its pricing currency and in USD. */
export function usageCsv(group: string, rows: Array<UsageSummaryRow & { label: string }>): string {
  const lines = [[group, 'calls', 'tokens', 'cost', 'currency', 'cost_usd'], ...rows.map((r) => [r.label, r.calls, r.totalTokens, r.cost, r.currency ?? 'USD', r.costUsd])]
  return lines.map((l) => l.map(csvCell).join(',')).join('\r\n') + '\r\n'
}
