/**
 * Pricing of a model (product.md §3 "Pricing"). Rates are per `unit` in `currency`
 * (USD when absent).
 *
 * Infinity: JSON cannot hold it, and neither can the bridge (IPC/WebSocket both carry
 * JSON), so the open-ended last tier is written as the string `'infinity'` in data and in
 * types alike. Use `tierLimit()` (tiers.ts) to turn it into a number for comparisons.
 */
export type Currency = 'USD' | 'CNY'

export type PricingUnitName =
  | 'textInput'
  | 'textOutput'
  | 'textInput_cacheRead'
  | 'textInput_cacheWrite'
  | 'audioInput'
  | 'audioOutput'
  | 'audioInput_cacheRead'
  | 'imageInput'
  | 'imageInput_cacheRead'
  | 'imageOutput'
  | 'videoInput'
  | 'imageGeneration'

export type PricingUnitType = 'millionTokens' | 'millionCharacters' | 'second' | 'image' | 'megapixel'

export type TierUpTo = number | 'infinity'

export interface PricingTier {
  rate: number
  /** Inclusive upper bound of the tier, measured in the quantity that selects the tier. */
  upTo: TierUpTo
}

interface UnitBase {
  name: PricingUnitName
  unit: PricingUnitType
}

export interface FixedPricingUnit extends UnitBase {
  strategy: 'fixed'
  rate: number
}

export interface TieredPricingUnit extends UnitBase {
  strategy: 'tiered'
  tiers: PricingTier[]
}

/**
 * Known lookup parameters: ttl ('5m' | '1h'), textInputRange / textInput and
 * textOutputRange / textOutput (a range key such as "[0, 0.032]" in millions of tokens),
 * thinkingMode ("[true]" / "[false]"), and quality / size for images.
 */
export type LookupParamName = 'ttl' | 'textInputRange' | 'textOutputRange' | 'textInput' | 'textOutput' | 'thinkingMode' | 'quality' | 'size'

export interface LookupPricingUnit extends UnitBase {
  strategy: 'lookup'
  lookup: {
    /** Keys are the parameter values joined with '_' in `pricingParams` order. */
    prices: Record<string, number>
    pricingParams: string[]
  }
}

export type PricingUnit = FixedPricingUnit | TieredPricingUnit | LookupPricingUnit

export interface Pricing {
  currency?: Currency
  units: PricingUnit[]
  /** Shown next to image-output chat models; not used by the calculator. */
  approximatePricePerImage?: number
}

/** Why a pricing entry or a cost could not be worked out. Plain data, never thrown. */
export interface PricingError {
  errorType: 'InvalidPricing' | 'NoPricing' | 'NoImagePricing' | 'UnsupportedPricing' | 'MissingPricingParams' | 'PriceNotFound'
  message: string
  /** Where in the pricing entry the problem is, e.g. "units[2].tiers". */
  path?: string
}

export type PricingResult<T> = { ok: true; value: T } | { ok: false; error: PricingError }
