import type { OpenAICompatibleConfig } from '../config'
import { keepOnly, topPInsideUnit } from '../payload-rules'

/** Cohere's compatibility API: top_p only inside (0, 1) clamped 0.01..0.99; penalties only strictly between 0 and 1. */
export const cohere: OpenAICompatibleConfig = {
  id: 'cohere',
  baseURL: 'https://api.cohere.ai/compatibility/v1',
  embeddings: true,
  chatPayload(body) {
    topPInsideUnit(body)
    keepOnly(body, 'frequency_penalty', (v) => v > 0 && v < 1)
    keepOnly(body, 'presence_penalty', (v) => v > 0 && v < 1)
    return body
  }
}
