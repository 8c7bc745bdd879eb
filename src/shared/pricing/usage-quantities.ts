import type { UsageRecord } from '../stream/usage'
import type { PricingUnitName } from './types'

/**
 * How many tokens each pricing unit bills for one usage record. The rules, each pinned by a
 * recorded case (tests/unit/catalogue/pricing-vectors.test.ts):
 * - Cached input goes to the modality's own `*_cacheRead` unit when the pricing has one,
 *   otherwise to `textInput_cacheRead`, otherwise (no cache price at all) to `textInput`.
 * - Uncached image / video / audio input goes to its own `*Input` unit when there is one,
 *   otherwise to `textInput` (a model without a modality price bills it as text).
 * - `textInput` = cache-miss tokens (when reported; they already include unpriced modalities)
 *   minus modalities billed on their own, or else text tokens minus cached text; tool-use
 *   prompt tokens (search grounding) are always added.
 * - `textOutput` = text + reasoning output (the total output less image / audio when only the
 *   total is reported); image / audio output use their own unit when priced, otherwise count as
 *   text output.
 * A unit whose inputs are all absent gets no quantity (it is left out of the breakdown);
 * an explicit 0 is a quantity.
 */
export function usageQuantities(usage: UsageRecord, priced: ReadonlySet<PricingUnitName>): Map<PricingUnitName, number> {
  const q = new Map<PricingUnitName, number>()
  const add = (name: PricingUnitName, value: number | undefined) => {
    if (value === undefined) return
    q.set(name, (q.get(name) ?? 0) + Math.max(0, value))
  }
  const u = usage
  const modalities = [
    { input: 'imageInput', cacheRead: 'imageInput_cacheRead', total: u.inputImageTokens, cached: u.inputCachedImageTokens },
    { input: 'videoInput', cacheRead: undefined, total: u.inputVideoTokens, cached: u.inputCachedVideoTokens },
    { input: 'audioInput', cacheRead: 'audioInput_cacheRead', total: u.inputAudioTokens, cached: u.inputCachedAudioTokens }
  ] as const

  // Cached input.
  const hasTextCache = priced.has('textInput_cacheRead')
  let cachedForText = u.inputCachedTokens
  for (const m of modalities) {
    if (m.cacheRead && priced.has(m.cacheRead) && m.cached !== undefined) {
      add(m.cacheRead, m.cached)
      if (cachedForText !== undefined) cachedForText -= m.cached
    }
  }
  if (cachedForText === undefined && u.inputCachedTextTokens !== undefined) cachedForText = u.inputCachedTextTokens
  if (hasTextCache) add('textInput_cacheRead', cachedForText)

  // Uncached input.
  let textInput: number | undefined
  const separatelyBilled = modalities.filter((m) => priced.has(m.input) && m.total !== undefined)
  for (const m of separatelyBilled) add(m.input, m.total! - (m.cached ?? 0))
  if (u.inputCacheMissTokens !== undefined) {
    textInput = u.inputCacheMissTokens - separatelyBilled.reduce((n, m) => n + (m.total! - (m.cached ?? 0)), 0)
  } else if (u.inputTextTokens !== undefined || modalities.some((m) => m.total !== undefined)) {
    textInput = (u.inputTextTokens ?? 0) - (u.inputCachedTextTokens ?? 0)
    for (const m of modalities) if (!priced.has(m.input) && m.total !== undefined) textInput += m.total - (m.cached ?? 0)
  }
  if (u.inputToolTokens !== undefined) textInput = (textInput ?? 0) + u.inputToolTokens
  if (!hasTextCache && cachedForText !== undefined) textInput = (textInput ?? 0) + cachedForText
  add('textInput', textInput)
  add('textInput_cacheWrite', u.inputWriteCacheTokens)

  // Output.
  let textOutput: number | undefined
  if (u.outputTextTokens !== undefined || u.outputReasoningTokens !== undefined) {
    textOutput = (u.outputTextTokens ?? 0) + (u.outputReasoningTokens ?? 0)
  } else if (u.totalOutputTokens !== undefined) {
    // Only the total is known (Anthropic reports output as one count): it is text and reasoning
    // but for the image / audio output counted below.
    textOutput = u.totalOutputTokens - (u.outputImageTokens ?? 0) - (u.outputAudioTokens ?? 0)
  }
  for (const [unit, value] of [['imageOutput', u.outputImageTokens], ['audioOutput', u.outputAudioTokens]] as const) {
    if (value === undefined) continue
    if (priced.has(unit)) add(unit, value)
    else textOutput = (textOutput ?? 0) + value
  }
  add('textOutput', textOutput)
  return q
}

/** Input tokens of the whole request: what tiered and range prices are selected by. */
export function totalInputTokens(usage: UsageRecord, quantities: Map<PricingUnitName, number>): number {
  if (usage.totalInputTokens !== undefined) return usage.totalInputTokens
  let total = 0
  for (const [name, value] of quantities) if (name.includes('Input')) total += value
  return total
}

export function totalOutputTokens(usage: UsageRecord, quantities: Map<PricingUnitName, number>): number {
  if (usage.totalOutputTokens !== undefined) return usage.totalOutputTokens
  let total = 0
  for (const [name, value] of quantities) if (name.includes('Output')) total += value
  return total
}
