import type { UsageRecord } from '../stream/usage'
import { DEFAULT_USD_TO_CNY, CREDITS_PER_USD, toUsd, usdToCredits } from './currency'
import { findLookupPrice, directLookupKey, type LookupValue } from './lookup-key'
import { selectTier } from './tiers'
import type { Currency, Pricing, PricingError, PricingResult, PricingUnit, PricingUnitName } from './types'
import { totalInputTokens, totalOutputTokens, usageQuantities } from './usage-quantities'

export interface ChatCostOptions {
  /** Values for lookup prices, e.g. { ttl: '5m' } or { thinkingMode: true }. */
  lookupParams?: Record<string, LookupValue | null | undefined>
  /** CNY per USD (default DEFAULT_USD_TO_CNY). */
  usdToCnyRate?: number
}

export interface CostSegment {
  quantity: number
  rate: number
  /** quantity × rate in the pricing currency. */
  amount: number
}

export interface UnitCost {
  name: PricingUnitName
  unit: PricingUnit
  quantity: number
  currency: Currency
  /** The rate applied (per `unit.unit`), when one was found. */
  rate?: number
  /** In the pricing currency. */
  amount: number
  /** Credits rounded up per unit (1 credit = 1e-6 USD). */
  credits: number
  /** credits / 1e6: what is charged, in USD. */
  usd: number
  lookupKey?: string
  segments?: CostSegment[]
}

export interface CostIssue extends PricingError {
  unitName: string
  unit: unknown
}

export interface ChatCost {
  currency: Currency
  breakdown: UnitCost[]
  issues: CostIssue[]
  /** Sum of unit amounts in the pricing currency. */
  totalAmount: number
  totalCredits: number
  totalUsd: number
}

const PER_MILLION = new Set(['millionTokens', 'millionCharacters'])

/**
 * Cost of one call from its usage record (providers.md §3): one line per priced unit
 * that the usage has a quantity for, in the pricing currency, in credits and in USD.
 * Tiered and range-looked-up prices are selected by the request's total input tokens, as
 * providers bill them (every unit of a >272k-token GPT-5.4 request costs the higher rate).
 * A unit that cannot be priced (unknown strategy, missing lookup value, malformed entry) is
 * reported in `issues` and costs nothing; only a missing or non-list pricing fails.
 */
export function computeChatCost(pricing: Pricing | null | undefined, usage: UsageRecord, options: ChatCostOptions = {}): PricingResult<ChatCost> {
  if (!pricing) return { ok: false, error: { errorType: 'NoPricing', message: 'The model has no pricing' } }
  if (!Array.isArray(pricing.units)) {
    return { ok: false, error: { errorType: 'InvalidPricing', message: 'pricing.units must be a list of pricing units', path: 'units' } }
  }
  const currency: Currency = pricing.currency === 'CNY' ? 'CNY' : 'USD'
  const cnyRate = options.usdToCnyRate ?? DEFAULT_USD_TO_CNY
  const priced = new Set(pricing.units.map((u) => u?.name).filter(Boolean))
  const quantities = usageQuantities(usage, priced)
  const inputTotal = totalInputTokens(usage, quantities)
  const outputTotal = totalOutputTokens(usage, quantities)

  const breakdown: UnitCost[] = []
  const issues: CostIssue[] = []
  pricing.units.forEach((unit, index) => {
    const problem = checkUnit(unit, index)
    if (problem) {
      issues.push({ ...problem, unitName: String((unit as { name?: unknown })?.name ?? `units[${index}]`), unit })
      return
    }
    const quantity = quantityOf(unit, quantities, usage)
    if (quantity === undefined) return
    const scale = PER_MILLION.has(unit.unit) ? 1 / 1_000_000 : 1
    const line: UnitCost = { name: unit.name, unit, quantity, currency, amount: 0, credits: 0, usd: 0 }

    switch (unit.strategy) {
      case 'fixed':
        line.rate = unit.rate
        line.amount = quantity * unit.rate * scale
        break
      case 'tiered': {
        const tier = selectTier(unit.tiers, inputTotal)!
        line.rate = tier.rate
        line.amount = quantity * tier.rate * scale
        line.segments = quantity > 0 ? [{ quantity, rate: tier.rate, amount: line.amount }] : []
        break
      }
      case 'lookup': {
        const params = unit.lookup.pricingParams
        const values: Array<LookupValue | null | undefined> = params.map((p) => lookupValue(p, options, inputTotal, outputTotal))
        const missing = params.filter((_p, i) => values[i] === undefined || values[i] === null)
        if (missing.length > 0) {
          issues.push({ errorType: 'MissingPricingParams', message: `Missing lookup params: ${missing.join(', ')}`, unitName: unit.name, unit })
          break
        }
        const found = findLookupPrice(unit.lookup.prices, values as LookupValue[])
        if (!found) {
          const key = directLookupKey(values as LookupValue[])
          line.lookupKey = key
          issues.push({ errorType: 'PriceNotFound', message: `Lookup price not found for key "${key}"`, unitName: unit.name, unit })
          break
        }
        line.lookupKey = found.key
        line.rate = found.price
        line.amount = quantity * found.price * scale
        break
      }
    }
    line.credits = usdToCredits(toUsd(line.amount, currency, cnyRate))
    line.usd = line.credits / CREDITS_PER_USD
    breakdown.push(line)
  })

  const totalCredits = breakdown.reduce((n, l) => n + l.credits, 0)
  return {
    ok: true,
    value: {
      currency,
      breakdown,
      issues,
      totalAmount: breakdown.reduce((n, l) => n + l.amount, 0),
      totalCredits,
      totalUsd: totalCredits / CREDITS_PER_USD
    }
  }
}

/**
 * What a unit bills: tokens for per-million-token units; the characters sent for a
 * per-million-character one (text to speech); the seconds of audio for a per-second one
 * (transcription). Per-image units are the image calculator's (image-cost.ts).
 */
function quantityOf(unit: PricingUnit, quantities: Map<PricingUnitName, number>, usage: UsageRecord): number | undefined {
  switch (unit.unit) {
    case 'millionTokens':
      return quantities.get(unit.name)
    case 'millionCharacters':
      return unit.name === 'textInput' ? usage.inputCharacters : undefined
    case 'second':
      return unit.name === 'audioInput' ? usage.inputAudioSeconds : undefined
    default:
      return undefined
  }
}

/** Range parameters default to the request's own size, in millions of tokens. */
function lookupValue(param: string, options: ChatCostOptions, inputTotal: number, outputTotal: number): LookupValue | null | undefined {
  if (options.lookupParams && param in options.lookupParams) return options.lookupParams[param]
  if (param === 'textInputRange' || param === 'textInput') return inputTotal / 1_000_000
  if (param === 'textOutputRange' || param === 'textOutput') return outputTotal / 1_000_000
  return undefined
}

/** A structural check of one unit, so malformed data is named instead of crashing. */
export function checkUnit(unit: unknown, index: number): PricingError | undefined {
  const at = `units[${index}]`
  if (!unit || typeof unit !== 'object') return { errorType: 'InvalidPricing', message: `${at} is not a pricing unit`, path: at }
  const u = unit as Record<string, unknown>
  if (typeof u['name'] !== 'string') return { errorType: 'InvalidPricing', message: `${at}.name is missing`, path: `${at}.name` }
  switch (u['strategy']) {
    case 'fixed':
      return typeof u['rate'] === 'number' && Number.isFinite(u['rate'])
        ? undefined
        : { errorType: 'InvalidPricing', message: `${at} (${u['name']}): a fixed price needs a numeric rate`, path: `${at}.rate` }
    case 'tiered': {
      const tiers = u['tiers']
      const valid =
        Array.isArray(tiers) &&
        tiers.length > 0 &&
        tiers.every((t) => t && typeof t.rate === 'number' && (typeof t.upTo === 'number' || t.upTo === 'infinity'))
      return valid
        ? undefined
        : { errorType: 'InvalidPricing', message: `${at} (${u['name']}): tiers must be a non-empty list of {rate, upTo: number | 'infinity'}`, path: `${at}.tiers` }
    }
    case 'lookup': {
      const lookup = u['lookup'] as { prices?: unknown; pricingParams?: unknown } | undefined
      const valid = lookup && typeof lookup.prices === 'object' && lookup.prices !== null && Array.isArray(lookup.pricingParams)
      return valid
        ? undefined
        : { errorType: 'InvalidPricing', message: `${at} (${u['name']}): a lookup price needs lookup.prices and lookup.pricingParams`, path: `${at}.lookup` }
    }
    default:
      return { errorType: 'UnsupportedPricing', message: 'Unsupported pricing strategy', path: `${at}.strategy` }
  }
}
