import type { CostBreakdown } from '../../shared/data/cost'
import { isCatalogueProviderId, loadProviderModels } from '../../shared/catalogue/loader'
import { computeChatCost } from '../../shared/pricing/chat-cost'
import { chatLookupParams, type ChatPricingContext } from '../../shared/pricing/lookup-params'
import type { UsageRecord } from '../../shared/stream/usage'

/**
 * A usage record priced with the built-in catalogue's entry for the model (per token, character
 * or second, as the entry's units say); undefined when the catalogue does not price the model.
 * `context` (the request's thinking, cache ttl) keys lookup-priced units; without it they cost nothing.
 */
export async function priceFromCatalogue(providerId: string, modelId: string, usage: UsageRecord, context?: ChatPricingContext): Promise<CostBreakdown | undefined> {
  if (!isCatalogueProviderId(providerId)) return undefined
  const builtin = (await loadProviderModels(providerId)).find((m) => m.id.toLowerCase() === modelId.toLowerCase())
  if (!builtin?.pricing) return undefined
  const cost = computeChatCost(builtin.pricing, usage, { lookupParams: chatLookupParams(context ?? { modelId }, usage) })
  if (!cost.ok) return undefined
  return {
    currency: cost.value.currency,
    total: cost.value.totalAmount,
    items: cost.value.breakdown.map((u) => ({ name: u.name, units: u.quantity, unit: u.unit.unit, rate: u.rate ?? 0, cost: u.amount }))
  }
}
