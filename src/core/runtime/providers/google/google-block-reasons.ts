import { googleBlockReasonText, isGoogleBlockReason } from '../../../../shared/errors/catalogue'

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

/**
 * The English text a block error carries (the catalogue's table, shared with the error card,
 * which shows it in the user's language from `detail.blockReason` / `detail.finishReason`).
 */
export const blockReasonMessage = (reason: string): string =>
  isGoogleBlockReason(reason) ? googleBlockReasonText(reason, 'en') : `The content was blocked (${reason}). Please adjust it and try again.`
