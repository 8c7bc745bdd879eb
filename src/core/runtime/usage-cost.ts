import { computeChatCost } from '../../shared/pricing/chat-cost'
import { chatLookupParams, type ChatPricingContext } from '../../shared/pricing/lookup-params'
import type { Pricing } from '../../shared/pricing/types'
import type { UsageRecord } from '../../shared/stream/usage'

/**
 * The usage record priced with the catalogue's calculator, when the model has pricing.
 * `cost` is what is charged in USD: credits (1e-6 USD, rounded up per unit) / 1e6, so CNY
 * prices are converted and sums of many replies stay exact.
 */
export function withCost(usage: UsageRecord, pricing: Pricing | undefined, context?: ChatPricingContext): UsageRecord {
  if (!pricing) return usage
  // Without a request context (conformance vectors) lookup units stay unpriced, as recorded.
  const result = computeChatCost(pricing, usage, context ? { lookupParams: chatLookupParams(context, usage) } : {})
  return result.ok ? { ...usage, cost: result.value.totalUsd } : usage
}
