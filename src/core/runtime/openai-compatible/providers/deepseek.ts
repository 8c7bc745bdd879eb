import type { OpenAICompatibleConfig } from '../config'

export const deepseek: OpenAICompatibleConfig = { id: 'deepseek', baseURL: 'https://api.deepseek.com/v1' }
