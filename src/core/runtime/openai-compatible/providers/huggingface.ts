import type { ErrorTypeName } from '../../../../shared/errors/catalogue'
import type { OpenAICompatibleConfig } from '../config'
import { topPInsideUnit } from '../payload-rules'

/** The two stream error texts Hugging Face sends in place of a status (providers.md §8). */
export function huggingFaceErrorType(message: string): ErrorTypeName | undefined {
  if (message.includes('Model requires a Pro subscription')) return 'PermissionDenied'
  if (message.includes('the token seems invalid')) return 'InvalidProviderAPIKey'
  return undefined
}

/**
 * Hugging Face's OpenAI-compatible inference router. Its card has no default base URL (the
 * catalogue predates the router), so the router's address is this config's.
 */
export const huggingface: OpenAICompatibleConfig = {
  id: 'huggingface',
  baseURL: 'https://router.huggingface.co/v1',
  mapError: (facts) => {
    const errorType = huggingFaceErrorType(facts.message)
    return errorType ? { errorType } : undefined
  },
  chatPayload(body) {
    // TGI rejects top_p of exactly 1 (the MiniMax and Cohere rule).
    topPInsideUnit(body)
    return body
  }
}
