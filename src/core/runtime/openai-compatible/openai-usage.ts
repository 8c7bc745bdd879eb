import type { UsageRecord } from '../../../shared/stream/usage'

/** The `usage` object of an OpenAI(-compatible) chat completion, with the extensions we meet in the wild. */
export interface OpenAIChatUsage {
  prompt_tokens?: number
  completion_tokens?: number
  total_tokens?: number
  /** Perplexity. */
  citation_tokens?: number
  /** DeepSeek. */
  prompt_cache_hit_tokens?: number
  prompt_cache_miss_tokens?: number
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number; audio_tokens?: number } | null
  completion_tokens_details?: {
    reasoning_tokens?: number
    audio_tokens?: number
    image_tokens?: number
    accepted_prediction_tokens?: number
    rejected_prediction_tokens?: number
  } | null
}

/** The `usage` object of the OpenAI Responses API. */
export interface OpenAIResponsesUsage {
  input_tokens?: number
  output_tokens?: number
  total_tokens?: number
  input_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number } | null
  output_tokens_details?: { reasoning_tokens?: number; image_tokens?: number } | null
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)

/** Drops zero and missing counts, except the ones listed in `keepZero` (a fully cached prompt has 0 misses). */
function compact(record: Record<string, number | undefined>, keepZero: readonly string[] = []): UsageRecord {
  const out: Record<string, number> = {}
  for (const [key, value] of Object.entries(record)) {
    if (value === undefined || Number.isNaN(value)) continue
    if (value === 0 && !keepZero.includes(key)) continue
    out[key] = value
  }
  return out as UsageRecord
}

/**
 * OpenAI chat usage → usage record (providers.md §3). Text output is what remains of the
 * completion after reasoning, audio and image tokens; xAI counts reasoning outside
 * completion_tokens, so its total output adds them back.
 */
export function convertOpenAIUsage(usage: OpenAIChatUsage, options: { provider?: string } = {}): UsageRecord {
  const inputText = num(usage.prompt_tokens) ?? 0
  const citation = num(usage.citation_tokens)
  const totalInput = inputText + (citation ?? 0)
  const details = usage.prompt_tokens_details ?? undefined
  const cached = num(details?.cached_tokens) ?? num(usage.prompt_cache_hit_tokens)
  const written = num(details?.cache_write_tokens)
  const hasCacheInfo = cached !== undefined || written !== undefined || num(usage.prompt_cache_miss_tokens) !== undefined
  const miss = num(usage.prompt_cache_miss_tokens) ?? (hasCacheInfo ? totalInput - (cached ?? 0) - (written ?? 0) : undefined)

  const out = usage.completion_tokens_details ?? undefined
  const reasoning = num(out?.reasoning_tokens) ?? 0
  const audioOut = num(out?.audio_tokens) ?? 0
  const imageOut = num(out?.image_tokens) ?? 0
  const completion = num(usage.completion_tokens)
  const reasoningOutside = options.provider === 'xai'
  const outputText = completion === undefined ? undefined : reasoningOutside ? completion - audioOut - imageOut : completion - reasoning - audioOut - imageOut
  const totalOutput = completion === undefined ? undefined : reasoningOutside ? completion + reasoning : completion
  const total = num(usage.total_tokens)

  return compact(
    {
      acceptedPredictionTokens: num(out?.accepted_prediction_tokens),
      inputAudioTokens: num(details?.audio_tokens),
      inputCacheMissTokens: miss,
      inputCachedTokens: cached,
      inputCitationTokens: citation,
      inputTextTokens: inputText,
      inputWriteCacheTokens: written,
      outputAudioTokens: audioOut,
      outputImageTokens: imageOut,
      outputReasoningTokens: reasoning,
      outputTextTokens: outputText,
      rejectedPredictionTokens: num(out?.rejected_prediction_tokens),
      totalInputTokens: totalInput,
      totalOutputTokens: totalOutput,
      totalTokens: total === undefined ? undefined : total + (citation ?? 0)
    },
    hasCacheInfo ? ['inputCacheMissTokens'] : []
  )
}

/** Responses API usage → usage record. */
export function convertOpenAIResponseUsage(usage: OpenAIResponsesUsage): UsageRecord {
  const input = num(usage.input_tokens) ?? 0
  const details = usage.input_tokens_details ?? undefined
  const cached = num(details?.cached_tokens)
  const written = num(details?.cache_write_tokens)
  // The Responses API always reports the cache split, so misses are always known.
  const hasCacheInfo = true
  const out = usage.output_tokens_details ?? undefined
  const reasoning = num(out?.reasoning_tokens) ?? 0
  const imageOut = num(out?.image_tokens) ?? 0
  const output = num(usage.output_tokens)
  return compact(
    {
      inputCacheMissTokens: hasCacheInfo ? input - (cached ?? 0) - (written ?? 0) : undefined,
      inputCachedTokens: cached,
      inputTextTokens: input,
      inputWriteCacheTokens: written,
      outputImageTokens: imageOut,
      outputReasoningTokens: reasoning,
      // Unlike chat usage, Responses output_tokens keeps image tokens inside the text count.
      outputTextTokens: output === undefined ? undefined : output - reasoning,
      totalInputTokens: input,
      totalOutputTokens: output,
      totalTokens: num(usage.total_tokens)
    },
    hasCacheInfo ? ['inputCacheMissTokens'] : []
  )
}
