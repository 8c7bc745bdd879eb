/**
 * The normalised usage record of providers.md §3. Every provider's raw usage object is
 * converted to this; pricing (src/shared/pricing) works on it. Fields are token counts, except
 * the characters and seconds that speech models are priced by.
 */
export interface UsageRecord {
  inputCacheMissTokens?: number
  inputCachedTokens?: number
  inputWriteCacheTokens?: number
  inputTextTokens?: number
  inputImageTokens?: number
  inputAudioTokens?: number
  inputCitationTokens?: number
  inputVideoTokens?: number
  /** Prompt tokens spent on tool results such as search grounding (Gemini). */
  inputToolTokens?: number
  /** Cached input by modality (Gemini reports cache details per modality). */
  inputCachedTextTokens?: number
  inputCachedVideoTokens?: number
  inputCachedImageTokens?: number
  inputCachedAudioTokens?: number
  outputReasoningTokens?: number
  outputTextTokens?: number
  outputAudioTokens?: number
  /** Image tokens produced (image-output models). */
  outputImageTokens?: number
  acceptedPredictionTokens?: number
  rejectedPredictionTokens?: number
  totalInputTokens?: number
  totalOutputTokens?: number
  totalTokens?: number
  /** Characters of text sent (text to speech priced per million characters). */
  inputCharacters?: number
  /** Seconds of audio sent (transcription priced per second). */
  inputAudioSeconds?: number
  /** What the call cost in USD (credits / 1e6), when the model has pricing (src/shared/pricing). */
  cost?: number
}
