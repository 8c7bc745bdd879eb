/**
 * Lookup prices are keyed by the values of `pricingParams` joined with '_':
 * "5m", "standard_1024x1024", "[0, 0.032]_[0.0002, infinity]", "[0.128, 0.256]_[true]".
 * A value is either matched as written, or — for numbers — against a range part
 * "[lo, hi]" (lo < value ≤ hi; 0 belongs to the first range), or — for booleans —
 * against "[true]" / "[false]". Keys with fewer parts than params match on the parts they have.
 */
export type LookupValue = string | number | boolean

export function directLookupKey(values: readonly LookupValue[]): string {
  return values.map((v) => (typeof v === 'boolean' ? `[${v}]` : String(v))).join('_')
}

export function findLookupPrice(prices: Record<string, number>, values: readonly LookupValue[]): { key: string; price: number } | undefined {
  const direct = directLookupKey(values)
  if (Object.hasOwn(prices, direct)) return { key: direct, price: prices[direct]! }
  let best: { key: string; price: number; lo: number } | undefined
  for (const [key, price] of Object.entries(prices)) {
    const parts = key.split('_')
    if (parts.length > values.length) continue
    let lo = 0
    const ok = parts.every((part, i) => {
      const value = values[i]!
      const range = /^\[\s*([\d.]+)\s*,\s*([\d.]+|infinity)\s*\]$/.exec(part)
      if (range && typeof value === 'number') {
        const low = Number(range[1])
        const high = range[2] === 'infinity' ? Number.POSITIVE_INFINITY : Number(range[2])
        if (i === 0) lo = low
        return (value > low && value <= high) || (value === 0 && low === 0)
      }
      if (typeof value === 'boolean') return part === `[${value}]`
      return part === String(value)
    })
    if (ok && (!best || lo < best.lo)) best = { key, price, lo }
  }
  return best ? { key: best.key, price: best.price } : undefined
}
