/**
 * User-facing texts for Gemini's block reasons (promptFeedback.blockReason and blocking
 * finishReasons). The reason code itself travels in the error detail for the UI to localise.
 */
const BLOCK_REASON_TEXT: Record<string, string> = {
  BLOCKLIST: 'The content includes blocked terms. Please rephrase and try again.',
  IMAGE_SAFETY: 'The generated image was blocked for safety reasons. Please try modifying your request.',
  IMAGE_PROHIBITED_CONTENT:
    'The generated image was blocked due to prohibited content. Please modify your request and try again.',
  LANGUAGE: "The requested language isn't supported. Please try again in a supported language.",
  OTHER: 'The content was blocked for an unknown reason. Please rephrase and try again.',
  PROHIBITED_CONTENT: 'The content may contain prohibited content. Please adjust it and try again.',
  RECITATION: 'The content was blocked due to recitation risk. Please use more original wording and try again.',
  SAFETY: 'The content was blocked for safety reasons. Please adjust it and try again.',
  SPII: 'The content may include sensitive personal information (SPII). Please remove sensitive details and try again.'
}

/** finishReasons that mean "blocked" rather than "done" (STOP, MAX_TOKENS… are normal ends). */
const BLOCKING_FINISH_REASONS = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'LANGUAGE'
])

export const isBlockingFinishReason = (reason: string): boolean => BLOCKING_FINISH_REASONS.has(reason)

export const blockReasonMessage = (reason: string): string =>
  BLOCK_REASON_TEXT[reason] ?? `The content was blocked (${reason}). Please adjust it and try again.`
