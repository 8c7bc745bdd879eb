import { CREDITS_PER_USD, DEFAULT_USD_TO_CNY, toUsd, usdToCredits } from './currency'
import { directLookupKey } from './lookup-key'
import type { Currency, Pricing, PricingResult } from './types'

export interface ImageCost {
  currency: Currency
  imageCount: number
  /** In the pricing currency. */
  pricePerImage: number
  lookupKey?: string
  /** For per-megapixel prices: the megapixels of one image. */
  megapixels?: number
  /** In the pricing currency. */
  totalAmount: number
  totalCredits: number
  totalUsd: number
}

export interface ImageCostOptions {
  usdToCnyRate?: number
}

const fail = (errorType: 'NoPricing' | 'NoImagePricing' | 'UnsupportedPricing' | 'MissingPricingParams' | 'PriceNotFound' | 'InvalidPricing', message: string, path?: string) =>
  ({ ok: false, error: { errorType, message, ...(path ? { path } : {}) } }) as const

/**
 * Cost of generating `imageCount` images with these request params: the `imageGeneration`
 * unit priced per image (fixed), per megapixel (fixed; the size comes from width × height or
 * a "WxH" / "W*H" size), or by lookup over its pricing params (e.g. quality_size). Tiered
 * image prices are not used by any catalogue entry and are reported as unsupported.
 */
export function computeImageCost(
  pricing: Pricing | null | undefined,
  params: Record<string, unknown>,
  imageCount = 1,
  options: ImageCostOptions = {}
): PricingResult<ImageCost> {
  if (!pricing || !Array.isArray(pricing.units)) return fail('NoPricing', 'The model has no pricing')
  const index = pricing.units.findIndex((u) => u?.name === 'imageGeneration')
  if (index === -1) return fail('NoImagePricing', 'The pricing has no imageGeneration unit', 'units')
  const unit = pricing.units[index]!
  const at = `units[${index}]`
  const currency: Currency = pricing.currency === 'CNY' ? 'CNY' : 'USD'
  let pricePerImage: number
  let lookupKey: string | undefined
  let megapixels: number | undefined

  if (unit.strategy === 'fixed' && typeof unit.rate === 'number') {
    if (unit.unit === 'image') pricePerImage = unit.rate
    else if (unit.unit === 'megapixel') {
      megapixels = imageMegapixels(params)
      if (megapixels === undefined) return fail('MissingPricingParams', 'A per-megapixel price needs width and height or a size like 1024x1024', `${at}.unit`)
      pricePerImage = unit.rate * megapixels
    } else return fail('UnsupportedPricing', `${at}: an image price must be per image or per megapixel, not per ${String(unit.unit)}`, `${at}.unit`)
  } else if (unit.strategy === 'lookup' && unit.lookup && Array.isArray(unit.lookup.pricingParams)) {
    const names = unit.lookup.pricingParams
    if (names.length === 0) return fail('InvalidPricing', `${at}: a lookup price needs at least one pricing param`, `${at}.lookup.pricingParams`)
    const values = names.map((n) => params[n])
    const missing = names.filter((_n, i) => values[i] === undefined || values[i] === null)
    if (missing.length > 0) return fail('MissingPricingParams', `Missing lookup params: ${missing.join(', ')}`, `${at}.lookup`)
    lookupKey = directLookupKey(values as Array<string | number | boolean>)
    const price = unit.lookup.prices[lookupKey]
    if (typeof price !== 'number') return fail('PriceNotFound', `Lookup price not found for key "${lookupKey}"`, `${at}.lookup.prices`)
    pricePerImage = price
  } else {
    return fail('UnsupportedPricing', `${at}: unsupported image pricing strategy '${String((unit as { strategy?: unknown }).strategy)}'`, `${at}.strategy`)
  }

  const totalAmount = pricePerImage * imageCount
  const totalCredits = usdToCredits(toUsd(totalAmount, currency, options.usdToCnyRate ?? DEFAULT_USD_TO_CNY))
  return {
    ok: true,
    value: {
      currency,
      imageCount,
      pricePerImage,
      ...(lookupKey !== undefined ? { lookupKey } : {}),
      ...(megapixels !== undefined ? { megapixels } : {}),
      totalAmount,
      totalCredits,
      totalUsd: totalCredits / CREDITS_PER_USD
    }
  }
}

function imageMegapixels(params: Record<string, unknown>): number | undefined {
  const width = params['width']
  const height = params['height']
  if (typeof width === 'number' && typeof height === 'number') return (width * height) / 1_000_000
  const size = params['size']
  if (typeof size === 'string') {
    const m = /^(\d+)\s*[x*×]\s*(\d+)$/i.exec(size)
    if (m) return (Number(m[1]) * Number(m[2])) / 1_000_000
  }
  return undefined
}
