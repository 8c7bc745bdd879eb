import type { OpenAICompatibleConfig } from '../config'

export const ppio: OpenAICompatibleConfig = { id: 'ppio', baseURL: 'https://api.ppinfra.com/v3/openai' }
