import type { OpenAICompatibleConfig } from '../config'

export const infiniai: OpenAICompatibleConfig = {
  id: 'infiniai',
  baseURL: 'https://cloud.infini-ai.com/maas/v1',
  // Infini-AI's 429 is its quota, not a momentary rate limit.
  mapError: (facts) => (facts.status === 429 ? { errorType: 'QuotaLimitReached' } : undefined)
}
