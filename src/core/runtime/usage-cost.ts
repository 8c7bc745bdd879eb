import { computeChatCost } from '../../shared/pricing/chat-cost'
import type { Pricing } from '../../shared/pricing/types'
import type { UsageRecord } from '../../shared/stream/usage'

/** The usage record priced with the catalogue's calculator (cost in the pricing currency), when the model has pricing. */
export function withCost(usage: UsageRecord, pricing: Pricing | undefined): UsageRecord {
  if (!pricing) return usage
  const result = computeChatCost(pricing, usage)
  return result.ok ? { ...usage, cost: Number(result.value.totalAmount.toFixed(10)) } : usage
}
