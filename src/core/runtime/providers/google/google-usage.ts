import type { UsageRecord } from '../../../../shared/stream/usage'

export interface GoogleModalityCount {
  modality?: string
  tokenCount?: number
}

/** Gemini / Vertex `usageMetadata` (the fields we read). */
export interface GoogleUsageMetadata {
  promptTokenCount?: number
  candidatesTokenCount?: number
  cachedContentTokenCount?: number
  thoughtsTokenCount?: number
  toolUsePromptTokenCount?: number
  totalTokenCount?: number
  promptTokensDetails?: GoogleModalityCount[]
  candidatesTokensDetails?: GoogleModalityCount[]
  cacheTokensDetails?: GoogleModalityCount[]
}

const byModality = (details: GoogleModalityCount[] | undefined, modality: string) =>
  details?.find((d) => d.modality?.toUpperCase() === modality)?.tokenCount

/**
 * Converts Gemini `usageMetadata` into a {@link UsageRecord}.
 *
 * `candidatesTokenCount` excludes thoughts, so reasoning is added to the output total;
 * text output falls back to candidates minus image tokens when no TEXT modality is reported.
 */
export function convertGoogleUsage(meta: GoogleUsageMetadata): UsageRecord {
  const usage: UsageRecord = {}
  const prompt = meta.promptTokenCount ?? 0
  const tool = meta.toolUsePromptTokenCount
  const candidates = meta.candidatesTokenCount ?? 0
  const thoughts = meta.thoughtsTokenCount

  if (meta.cachedContentTokenCount !== undefined) {
    usage.inputCachedTokens = meta.cachedContentTokenCount
    usage.inputCacheMissTokens = Math.max(0, prompt - meta.cachedContentTokenCount)
  }
  const cachedText = byModality(meta.cacheTokensDetails, 'TEXT')
  const cachedVideo = byModality(meta.cacheTokensDetails, 'VIDEO')
  if (cachedText !== undefined) usage.inputCachedTextTokens = cachedText
  if (cachedVideo !== undefined) usage.inputCachedVideoTokens = cachedVideo

  const inText = byModality(meta.promptTokensDetails, 'TEXT')
  const inImage = byModality(meta.promptTokensDetails, 'IMAGE')
  const inAudio = byModality(meta.promptTokensDetails, 'AUDIO')
  const inVideo = byModality(meta.promptTokensDetails, 'VIDEO')
  if (inText !== undefined) usage.inputTextTokens = inText
  if (inImage !== undefined) usage.inputImageTokens = inImage
  if (inAudio !== undefined) usage.inputAudioTokens = inAudio
  if (inVideo !== undefined) usage.inputVideoTokens = inVideo
  if (tool !== undefined) usage.inputToolTokens = tool

  const outImage = byModality(meta.candidatesTokensDetails, 'IMAGE') ?? 0
  const outText = byModality(meta.candidatesTokensDetails, 'TEXT') ?? Math.max(0, candidates - outImage)
  usage.outputImageTokens = outImage
  usage.outputTextTokens = outText
  if (thoughts !== undefined) usage.outputReasoningTokens = thoughts

  usage.totalInputTokens = prompt + (tool ?? 0)
  usage.totalOutputTokens = candidates + (thoughts ?? 0)
  usage.totalTokens = meta.totalTokenCount ?? usage.totalInputTokens + usage.totalOutputTokens
  return usage
}
