import { computeChatCost } from '../../shared/pricing/chat-cost'
import type { Pricing } from '../../shared/pricing/types'
import type { UsageRecord } from '../../shared/stream/usage'

/**
 * The usage record priced with the catalogue's calculator, when the model has pricing.
 * `cost` is what is charged in USD: credits (1e-6 USD, rounded up per unit) / 1e6, so CNY
 * prices are converted and sums of many replies stay exact.
 */
export function withCost(usage: UsageRecord, pricing: Pricing | undefined): UsageRecord {
  if (!pricing) return usage
  const result = computeChatCost(pricing, usage)
  return result.ok ? { ...usage, cost: result.value.totalUsd } : usage
}
