import type { OpenAICompatibleConfig } from '../config'

export const ai302: OpenAICompatibleConfig = { id: 'ai302', baseURL: 'https://api.302.ai/v1' }
