import { describe, expect, it } from 'vitest'
import { csvCell, formatUsageCost, usageCsv } from '../../../src/renderer/features/usage/usage-format'

describe('usage CSV and cost text', () => {
  it('writes one line per row with the cost in its currency and in USD, quoting what needs it', () => {
    const csv = usageCsv('agent', [
      { key: 'a', label: 'Writer, "pro"', calls: 2, totalTokens: 30, cost: 7.12, costUsd: 1, currency: 'CNY', inputTokens: 20, cachedInputTokens: 0 },
      { key: 'b', label: 'Coder', calls: 1, totalTokens: 5, cost: 0.25, costUsd: 0.25, inputTokens: 4, cachedInputTokens: 0 }
    ])
    expect(csv).toBe('agent,calls,tokens,cost,currency,cost_usd\r\n"Writer, ""pro""",2,30,7.12,CNY,1\r\nCoder,1,5,0.25,USD,0.25\r\n')
    expect(csvCell('line\nbreak')).toBe('"line\nbreak"')
  })

  it('reads like a message cost line: ¥ for CNY, $ for USD, six decimals below a cent, no trailing zeros', () => {
    expect(formatUsageCost(0.000907, 'USD')).toBe('$0.000907')
    expect(formatUsageCost(0.0009, 'USD')).toBe('$0.0009')
    expect(formatUsageCost(1.5, 'CNY')).toBe('¥1.50')
    expect(formatUsageCost(1.23456, 'USD')).toBe('$1.2346')
    expect(formatUsageCost(2, 'EUR')).toBe('EUR 2.00')
    // Nothing spent (an agent never used, a day without calls) is not "$0.000000".
    expect(formatUsageCost(0, 'USD')).toBe('$0.00')
  })
})
