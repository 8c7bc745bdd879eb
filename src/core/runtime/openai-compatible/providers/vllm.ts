import type { OpenAICompatibleConfig } from '../config'

/** vLLM's OpenAI server: no key; max_model_len is the context window. */
export const vllm: OpenAICompatibleConfig = {
  id: 'vllm',
  baseURL: 'http://localhost:8000/v1',
  keyless: true,
  embeddings: true,
  toFetchedModel: (raw) => ({ id: String(raw['id']), contextWindowTokens: typeof raw['max_model_len'] === 'number' ? raw['max_model_len'] : undefined })
}
