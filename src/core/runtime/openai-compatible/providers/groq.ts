import type { OpenAICompatibleConfig } from '../config'
import { keepOnly } from '../payload-rules'

/** Groq rejects temperature ≤ 0; 403 means an unsupported region (generic mapping). */
export const groq: OpenAICompatibleConfig = {
  id: 'groq',
  baseURL: 'https://api.groq.com/openai/v1',
  // A 403 from Groq is its region block (providers.md §8).
  mapError: (facts) => (facts.status === 403 ? { errorType: 'LocationNotSupportError' } : undefined),
  chatPayload(body) {
    keepOnly(body, 'temperature', (t) => t > 0)
    return body
  }
}
