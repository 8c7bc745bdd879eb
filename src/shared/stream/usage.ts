/**
 * The normalised usage record of providers.md §3. Every provider's raw usage object is
 * converted to this; pricing (src/shared/pricing) works on it. All fields are token counts.
 */
export interface UsageRecord {
  inputCacheMissTokens?: number
  inputCachedTokens?: number
  inputWriteCacheTokens?: number
  inputTextTokens?: number
  inputImageTokens?: number
  inputAudioTokens?: number
  inputCitationTokens?: number
  outputReasoningTokens?: number
  outputTextTokens?: number
  outputAudioTokens?: number
  acceptedPredictionTokens?: number
  rejectedPredictionTokens?: number
  totalInputTokens?: number
  totalOutputTokens?: number
  totalTokens?: number
}
