import type { PricingTier, TierUpTo } from './types'

/** 'infinity' (our JSON-safe spelling) as a number. */
export const tierLimit = (upTo: TierUpTo): number => (upTo === 'infinity' ? Number.POSITIVE_INFINITY : upTo)

/**
 * The tier that applies to `selector` (inclusive upper bounds, in order); past the last
 * finite bound the last tier applies. Undefined only for an empty list.
 */
export function selectTier(tiers: readonly PricingTier[], selector: number): PricingTier | undefined {
  return tiers.find((tier) => selector <= tierLimit(tier.upTo)) ?? tiers[tiers.length - 1]
}
