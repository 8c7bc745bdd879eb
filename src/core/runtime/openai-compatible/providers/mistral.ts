import type { OpenAICompatibleConfig } from '../config'
import { halveTemperature } from '../payload-rules'

export const mistral: OpenAICompatibleConfig = {
  id: 'mistral',
  baseURL: 'https://api.mistral.ai/v1',
  embeddings: true,
  chatPayload(body) {
    halveTemperature(body)
    // Mistral rejects OpenAI's stream_options.
    delete body.stream_options
    return body
  }
}
