import type { OpenAICompatibleConfig } from '../config'
import { keepOnly } from '../payload-rules'

/**
 * Perplexity: temperature ≥ 2 dropped; presence and frequency penalties are exclusive, so
 * with no (or zero) presence penalty the frequency penalty defaults to 1.
 */
export const perplexity: OpenAICompatibleConfig = {
  id: 'perplexity',
  baseURL: 'https://api.perplexity.ai',
  chatPayload(body) {
    keepOnly(body, 'temperature', (t) => t < 2)
    if (!body.presence_penalty) {
      delete body.presence_penalty
      body.frequency_penalty = body.frequency_penalty || 1
    } else delete body.frequency_penalty
    return body
  }
}
