import { describe, expect, it } from 'vitest'
import { loadProviderModels } from '../../../src/shared/catalogue/loader'
import { computeChatCost } from '../../../src/shared/pricing/chat-cost'
import { chatLookupParams, type ChatPricingContext } from '../../../src/shared/pricing/lookup-params'
import type { UsageRecord } from '../../../src/shared/stream/usage'
import { withCost } from '../../../src/core/runtime/usage-cost'

/**
 * Cost vectors for lookup-priced units (providers.md §3 and §9, product.md §9): prices come
 * from the catalogue, expected amounts are worked out by hand from the rates in the comments.
 */
interface Vector {
  name: string
  provider: string
  model: string
  context: ChatPricingContext
  usage: UsageRecord
  /** In the pricing currency. */
  total: number
  lines: Record<string, number>
}

const VECTORS: Vector[] = [
  {
    // Sonnet 4.6: input 3, output 15, cache read 0.3, cache write 3.75 (5m) / 6 (1h) USD per million.
    name: 'Claude cache write (5m, the default ttl of an ephemeral block) + cache read',
    provider: 'anthropic',
    model: 'claude-sonnet-4-6',
    context: { modelId: 'claude-sonnet-4-6' },
    usage: { inputCacheMissTokens: 1000, inputCachedTokens: 2000, inputWriteCacheTokens: 4000, totalInputTokens: 7000, outputTextTokens: 500, totalOutputTokens: 500, totalTokens: 7500 },
    total: 0.003 + 0.0006 + 0.015 + 0.0075,
    lines: { textInput: 0.003, textInput_cacheRead: 0.0006, textInput_cacheWrite: 0.015, textOutput: 0.0075 }
  },
  {
    name: 'Claude cache write with a 1h ttl',
    provider: 'anthropic',
    model: 'claude-sonnet-4-6',
    context: { modelId: 'claude-sonnet-4-6', cacheTtl: '1h' },
    usage: { inputCacheMissTokens: 1000, inputCachedTokens: 2000, inputWriteCacheTokens: 4000, totalInputTokens: 7000, outputTextTokens: 500, totalOutputTokens: 500, totalTokens: 7500 },
    total: 0.003 + 0.0006 + 0.024 + 0.0075,
    lines: { textInput: 0.003, textInput_cacheRead: 0.0006, textInput_cacheWrite: 0.024, textOutput: 0.0075 }
  },
  {
    // Qwen Plus (CNY per million): input 0.8 up to 128k tokens; output 2 without thinking, 8 with.
    name: 'Qwen Plus without thinking',
    provider: 'qwen',
    model: 'qwen-plus',
    context: { modelId: 'qwen-plus' },
    usage: { inputTextTokens: 1000, totalInputTokens: 1000, outputTextTokens: 500, totalOutputTokens: 500, totalTokens: 1500 },
    total: 0.0008 + 0.001,
    lines: { textInput: 0.0008, textOutput: 0.001 }
  },
  {
    name: 'Qwen Plus with thinking asked for',
    provider: 'qwen',
    model: 'qwen-plus',
    context: { modelId: 'qwen-plus', thinking: 'enabled' },
    usage: { inputTextTokens: 1000, totalInputTokens: 1000, outputTextTokens: 500, totalOutputTokens: 500, totalTokens: 1500 },
    total: 0.0008 + 0.004,
    lines: { textInput: 0.0008, textOutput: 0.004 }
  },
  {
    name: 'Qwen Plus that reports reasoning tokens is billed as thinking',
    provider: 'qwen',
    model: 'qwen-plus',
    context: { modelId: 'qwen-plus' },
    usage: { inputTextTokens: 1000, totalInputTokens: 1000, outputReasoningTokens: 300, outputTextTokens: 200, totalOutputTokens: 500, totalTokens: 1500 },
    total: 0.0008 + 0.004,
    lines: { textInput: 0.0008, textOutput: 0.004 }
  },
  {
    // 200k input tokens falls in [0.128, 0.256]: input 2.4, output 20 / 24 (thinking).
    name: 'Qwen Plus in the second input range, thinking',
    provider: 'qwen',
    model: 'qwen-plus',
    context: { modelId: 'qwen-plus', thinking: 'enabled' },
    usage: { inputTextTokens: 200_000, totalInputTokens: 200_000, outputTextTokens: 1000, totalOutputTokens: 1000, totalTokens: 201_000 },
    total: 0.48 + 0.024,
    lines: { textInput: 0.48, textOutput: 0.024 }
  }
]

const pricingOf = async (provider: string, model: string) => (await loadProviderModels(provider)).find((m) => m.id === model)!.pricing!

describe('lookup-priced units get their parameters (ttl, input range, thinking mode)', () => {
  for (const v of VECTORS) {
    it(v.name, async () => {
      const r = computeChatCost(await pricingOf(v.provider, v.model), v.usage, { lookupParams: chatLookupParams(v.context, v.usage) })
      if (!r.ok) throw new Error(r.error.message)
      expect(r.value.issues).toEqual([])
      expect(Object.fromEntries(r.value.breakdown.map((l) => [l.name, Number(l.amount.toFixed(10))]))).toEqual(v.lines)
      expect(r.value.totalAmount).toBeCloseTo(v.total, 10)
    })
  }

  it('the runtime prices a usage event with the request context (Qwen Plus output is not $0)', async () => {
    const usage = VECTORS[3]!.usage
    const priced = withCost(usage, await pricingOf('qwen', 'qwen-plus'), { modelId: 'qwen-plus', thinking: 'enabled' })
    // 0.0048 CNY at 7.12 CNY per USD, rounded up per unit to whole credits (1e-6 USD).
    expect(priced.cost).toBeCloseTo(Math.ceil((0.0008 / 7.12) * 1e6) / 1e6 + Math.ceil((0.004 / 7.12) * 1e6) / 1e6, 8)
  })
})
