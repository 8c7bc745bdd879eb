import type { OpenAICompatibleConfig } from '../config'

/** LM Studio's local server: no key. */
export const lmstudio: OpenAICompatibleConfig = { id: 'lmstudio', baseURL: 'http://127.0.0.1:1234/v1', keyless: true, embeddings: true }
