import type { UsageRecord } from '../stream/usage'
import { computeChatCost, type ChatCost, type ChatCostOptions } from './chat-cost'
import type { Pricing, PricingResult } from './types'

/** Without a known cap, a reply is guessed at half the prompt, at most this many tokens. */
export const DEFAULT_ESTIMATED_OUTPUT_CAP = 8192
const OUTPUT_RATIO = 0.5

/** A pre-send guess of the reply length: half the input, capped by the request/model cap. */
export function estimateChatOutputTokens(inputTokens: number, cap?: number): number {
  return Math.min(inputTokens * OUTPUT_RATIO, cap ?? DEFAULT_ESTIMATED_OUTPUT_CAP)
}

export interface TokenEstimateInput {
  textTokens: number
  imageTokens?: number
  audioTokens?: number
  videoTokens?: number
  /** Known output size; estimated from the input when absent. */
  outputTextTokens?: number
  /** The effective max output of the request or model. */
  maxOutputTokens?: number
}

export interface ChatCostEstimate extends ChatCost {
  estimatedOutputTokens: number
  inputTextTokens: number
  inputImageTokens: number
  inputAudioTokens: number
  inputVideoTokens: number
  totalInputTokens: number
  usage: UsageRecord
}

/**
 * Cost of a request before it is sent. Image / audio / video input is priced with its own
 * unit when the model has one, otherwise as text (as the provider would bill it).
 */
export function estimateChatCostFromTokens(
  pricing: Pricing | null | undefined,
  input: TokenEstimateInput,
  options: ChatCostOptions = {}
): PricingResult<ChatCostEstimate> {
  if (!pricing) return { ok: false, error: { errorType: 'NoPricing', message: 'The model has no pricing' } }
  const priced = new Set((pricing.units ?? []).map((u) => u?.name))
  const image = input.imageTokens ?? 0
  const audio = input.audioTokens ?? 0
  const video = input.videoTokens ?? 0
  const totalInputTokens = input.textTokens + image + audio + video
  const usage: UsageRecord = {}
  let text = input.textTokens
  for (const [unit, value, field] of [
    ['imageInput', image, 'inputImageTokens'],
    ['audioInput', audio, 'inputAudioTokens'],
    ['videoInput', video, 'inputVideoTokens']
  ] as const) {
    if (value <= 0) continue
    if (priced.has(unit)) usage[field] = value
    else text += value
  }
  usage.inputTextTokens = text
  const estimatedOutputTokens = input.outputTextTokens ?? estimateChatOutputTokens(totalInputTokens, input.maxOutputTokens)
  usage.outputTextTokens = estimatedOutputTokens
  usage.totalInputTokens = totalInputTokens
  usage.totalOutputTokens = estimatedOutputTokens
  usage.totalTokens = totalInputTokens + estimatedOutputTokens

  const cost = computeChatCost(pricing, usage, options)
  if (!cost.ok) return cost
  return {
    ok: true,
    value: {
      ...cost.value,
      estimatedOutputTokens,
      inputTextTokens: input.textTokens,
      inputImageTokens: image,
      inputAudioTokens: audio,
      inputVideoTokens: video,
      totalInputTokens,
      usage
    }
  }
}
