import type { OpenAICompatibleConfig } from '../config'

export const jina: OpenAICompatibleConfig = { id: 'jina', baseURL: 'https://deepsearch.jina.ai/v1' }
