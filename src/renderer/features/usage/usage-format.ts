import type { UsageSummaryRow } from '../../../shared/data/usage-log'

const symbol = (currency: string | undefined) => (currency === 'CNY' ? '¥' : currency === 'USD' || !currency ? '$' : `${currency} `)

/** Up to `digits` decimals without trailing zeros, but always cents ("$0.00", "$1.50", "$0.0009"). */
const amount = (total: number, digits: number) => total.toFixed(digits).replace(/(\.\d\d\d*?)0+$/, '$1')

/**
 * A cost as the messages, the usage page and the agents show it: six decimals below a cent
 * (where model calls cost), four above, without trailing zeros; nothing spent is "$0.00", not
 * "$0.000000".
 */
export const formatUsageCost = (total: number, currency: string | undefined) => `${symbol(currency)}${amount(total, total < 0.01 ? 6 : 4)}`

/** A CSV cell: quoted when it holds a comma, quote or line break (RFC 4180). */
export const csvCell = (v: string | number) => (/[",\n\r]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v))

/** The usage table as CSV: one line per row, the cost in its pricing currency and in USD. */
export function usageCsv(group: string, rows: Array<UsageSummaryRow & { label: string }>): string {
  const lines = [[group, 'calls', 'tokens', 'cost', 'currency', 'cost_usd'], ...rows.map((r) => [r.label, r.calls, r.totalTokens, r.cost, r.currency ?? 'USD', r.costUsd])]
  return lines.map((l) => l.map(csvCell).join(',')).join('\r\n') + '\r\n'
}
