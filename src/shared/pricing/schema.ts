import { z } from 'zod'
import type { Pricing, PricingResult } from './types'

const unitName = z.enum([
  'textInput', 'textOutput', 'textInput_cacheRead', 'textInput_cacheWrite', 'audioInput', 'audioOutput', 'audioInput_cacheRead',
  'imageInput', 'imageInput_cacheRead', 'imageOutput', 'videoInput', 'imageGeneration'
])
const unitType = z.enum(['millionTokens', 'millionCharacters', 'second', 'image', 'megapixel'])
const rate = z.number().finite().min(0)

export const pricingUnitSchema = z.discriminatedUnion('strategy', [
  z.object({ name: unitName, unit: unitType, strategy: z.literal('fixed'), rate }).strict(),
  z
    .object({
      name: unitName,
      unit: unitType,
      strategy: z.literal('tiered'),
      tiers: z.array(z.object({ rate, upTo: z.union([z.number().positive(), z.literal('infinity')]) }).strict()).min(1)
    })
    .strict(),
  z
    .object({
      name: unitName,
      unit: unitType,
      strategy: z.literal('lookup'),
      lookup: z.object({ prices: z.record(z.string(), rate), pricingParams: z.array(z.string()).min(1) }).strict()
    })
    .strict()
])

export const pricingSchema = z
  .object({
    currency: z.enum(['USD', 'CNY']).optional(),
    units: z.array(pricingUnitSchema),
    approximatePricePerImage: z.number().min(0).optional()
  })
  .strict()

/** Validates a pricing entry from outside (custom models, remote lists); names the first problem. */
export function parsePricing(value: unknown): PricingResult<Pricing> {
  const parsed = pricingSchema.safeParse(value)
  if (parsed.success) return { ok: true, value: parsed.data as Pricing }
  const issue = parsed.error.issues[0]!
  const path = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '')
  return { ok: false, error: { errorType: 'InvalidPricing', message: `Invalid pricing at ${path || '(root)'}: ${issue.message}`, path } }
}
