import { describe, expect, it } from 'vitest'
import { loadProviderModels } from '../../../src/shared/catalogue/loader'
import { computeChatCost } from '../../../src/shared/pricing/chat-cost'
import { CREDITS_PER_USD, usdToCredits } from '../../../src/shared/pricing/currency'
import { computeImageCost } from '../../../src/shared/pricing/image-cost'
import { findLookupPrice } from '../../../src/shared/pricing/lookup-key'
import { parsePricing } from '../../../src/shared/pricing/schema'
import { selectTier, tierLimit } from '../../../src/shared/pricing/tiers'
import type { Pricing } from '../../../src/shared/pricing/types'

const fixed = (name: string, rate: number, unit = 'millionTokens') => ({ name, rate, strategy: 'fixed', unit }) as Pricing['units'][number]

describe('pricing', () => {
  it('bills each unit in its own measure: tokens, characters sent, seconds of audio', () => {
    const pricing: Pricing = { units: [fixed('textInput', 15, 'millionCharacters'), fixed('audioInput', 0.006, 'second'), fixed('textOutput', 10)] }
    const cost = computeChatCost(pricing, { inputCharacters: 2000, inputTextTokens: 450, inputAudioSeconds: 90, outputTextTokens: 1000 })
    expect(cost.ok).toBe(true)
    if (!cost.ok) return
    // Characters, not the 450 tokens, for a per-character price; seconds as they are, not per million.
    expect(cost.value.breakdown.map((l) => [l.name, l.quantity, l.amount])).toEqual([
      ['textInput', 2000, (2000 * 15) / 1_000_000],
      ['audioInput', 90, 90 * 0.006],
      ['textOutput', 1000, (1000 * 10) / 1_000_000]
    ])
    // A call that did not say how long its audio was has no seconds to bill: nothing is made up.
    const unmeasured = computeChatCost(pricing, { inputAudioTokens: 500 })
    expect(unmeasured.ok && unmeasured.value.breakdown.map((l) => l.name)).toEqual([])
  })

  it("writes an open-ended tier as 'infinity' (JSON has no Infinity) and compares it as Infinity", () => {
    expect(tierLimit('infinity')).toBe(Number.POSITIVE_INFINITY)
    const tiers = [{ rate: 1.25, upTo: 200000 }, { rate: 2.5, upTo: 'infinity' as const }]
    expect(selectTier(tiers, 200000)!.rate).toBe(1.25)
    expect(selectTier(tiers, 200001)!.rate).toBe(2.5)
    expect(selectTier([{ rate: 1, upTo: 10 }], 50)!.rate).toBe(1)
  })

  it('Gemini 2.5 Pro example: 1.25 (2.5 above 200000 tokens) / 10 (15 above)', async () => {
    const model = (await loadProviderModels('google')).find((m) => m.id === 'gemini-2.5-pro')!
    const small = computeChatCost(model.pricing, { inputTextTokens: 1_000_000 - 800_001, outputTextTokens: 1000 })
    const large = computeChatCost(model.pricing, { inputTextTokens: 300_000, outputTextTokens: 1000 })
    expect(small.ok && small.value.breakdown.map((l) => l.rate)).toEqual([1.25, 10])
    expect(large.ok && large.value.breakdown.map((l) => l.rate)).toEqual([2.5, 15])
  })

  it('GPT-5 example: 1.25 / 10 with cached input 0.125 (USD, credits = 1e-6 USD)', () => {
    const pricing: Pricing = { units: [fixed('textInput', 1.25), fixed('textInput_cacheRead', 0.125), fixed('textOutput', 10)] }
    const r = computeChatCost(pricing, { inputCacheMissTokens: 1_000_000, inputCachedTokens: 1_000_000, outputTextTokens: 1_000_000 })
    expect(r.ok && r.value.totalUsd).toBeCloseTo(11.375)
    expect(r.ok && r.value.totalCredits).toBe(11_375_000)
    expect(CREDITS_PER_USD).toBe(1e6)
  })

  it('DeepSeek V3 example in CNY (2 / 8): totals in CNY, USD and credits with a configurable rate', () => {
    const pricing: Pricing = { currency: 'CNY', units: [fixed('textInput', 2), fixed('textOutput', 8)] }
    const at7 = computeChatCost(pricing, { inputTextTokens: 1_000_000, outputTextTokens: 1_000_000 }, { usdToCnyRate: 7 })
    const at5 = computeChatCost(pricing, { inputTextTokens: 1_000_000, outputTextTokens: 1_000_000 }, { usdToCnyRate: 5 })
    expect(at7.ok && at7.value.totalAmount).toBeCloseTo(10)
    expect(at7.ok && at7.value.currency).toBe('CNY')
    // Credits are rounded up per unit, then summed.
    expect(at7.ok && at7.value.totalCredits).toBe(usdToCredits(2 / 7) + usdToCredits(8 / 7))
    expect(at5.ok && at5.value.totalUsd).toBeCloseTo(2)
  })

  it('Claude cache write by ttl lookup (5m 1.25× input, 1h 2×)', () => {
    const pricing: Pricing = {
      units: [fixed('textInput', 3), { name: 'textInput_cacheWrite', strategy: 'lookup', unit: 'millionTokens', lookup: { prices: { '5m': 3.75, '1h': 6 }, pricingParams: ['ttl'] } }]
    }
    const r = computeChatCost(pricing, { inputCacheMissTokens: 0, inputWriteCacheTokens: 1_000_000 }, { lookupParams: { ttl: '1h' } })
    expect(r.ok && r.value.breakdown.find((l) => l.name === 'textInput_cacheWrite')).toMatchObject({ lookupKey: '1h', rate: 6, credits: 6_000_000 })
  })

  it('Qwen Plus lookup by input range and thinking mode', async () => {
    const model = (await loadProviderModels('qwen')).find((m) => m.id === 'qwen-plus')!
    const thinking = computeChatCost(model.pricing, { inputTextTokens: 150_000, outputTextTokens: 1_000_000 }, { lookupParams: { thinkingMode: true } })
    expect(thinking.ok && thinking.value.breakdown.find((l) => l.name === 'textOutput')).toMatchObject({ lookupKey: '[0.128, 0.256]_[true]', rate: 24 })
    expect(findLookupPrice({ '[0, 0.032]': 1, '[0.032, infinity]': 2 }, [0])).toEqual({ key: '[0, 0.032]', price: 1 })
    expect(findLookupPrice({ '[0, 0.032]': 1, '[0.032, infinity]': 2 }, [0.032])).toEqual({ key: '[0, 0.032]', price: 1 })
    expect(findLookupPrice({ '[0, 0.032]': 1, '[0.032, infinity]': 2 }, [5])).toEqual({ key: '[0.032, infinity]', price: 2 })
  })

  it('malformed pricing gives typed errors naming what is wrong, never a throw', () => {
    expect(computeChatCost(undefined, {})).toEqual({ ok: false, error: { errorType: 'NoPricing', message: 'The model has no pricing' } })
    const notList = computeChatCost({ units: 'x' } as unknown as Pricing, {})
    expect(notList.ok === false && notList.error).toMatchObject({ errorType: 'InvalidPricing', path: 'units' })
    const badTier = computeChatCost({ units: [{ name: 'textInput', strategy: 'tiered', unit: 'millionTokens', tiers: [{ rate: 1, upTo: 'forever' }] }] } as unknown as Pricing, {
      inputTextTokens: 5
    })
    expect(badTier.ok && badTier.value.issues[0]).toMatchObject({ errorType: 'InvalidPricing', path: 'units[0].tiers', unitName: 'textInput' })
    const parsed = parsePricing({ units: [{ name: 'textInput', strategy: 'fixed', unit: 'millionTokens', rate: -1 }] })
    expect(parsed.ok === false && parsed.error).toMatchObject({ errorType: 'InvalidPricing', path: 'units[0].rate' })
    expect(parsed.ok === false && parsed.error.message).toContain('units[0].rate')
  })

  it('image cost per image, per megapixel and by lookup', async () => {
    const imagen = (await loadProviderModels('google')).find((m) => m.id === 'imagen-4.0-generate-001')!
    const perImage = computeImageCost(imagen.pricing, {}, 2)
    expect(perImage.ok && perImage.value.totalAmount).toBeCloseTo(0.08)
    const schnell = (await loadProviderModels('fal')).find((m) => m.id === 'fal-ai/flux/schnell')!
    const perMp = computeImageCost(schnell.pricing, { width: 1000, height: 1000 }, 1)
    expect(perMp.ok && perMp.value).toMatchObject({ megapixels: 1, pricePerImage: 0.003, totalCredits: 3000 })
    const missing = computeImageCost(schnell.pricing, {}, 1)
    expect(missing.ok === false && missing.error.errorType).toBe('MissingPricingParams')
    const qwenImage = (await loadProviderModels('qwen')).find((m) => m.id === 'qwen-image')
    if (qwenImage?.pricing) {
      const cny = computeImageCost(qwenImage.pricing, {}, 1, { usdToCnyRate: 5 })
      expect(cny.ok && cny.value.currency).toBe('CNY')
    }
  })
})
