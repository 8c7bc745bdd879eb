import type { OpenAICompatibleConfig } from '../config'

export const sambanova: OpenAICompatibleConfig = { id: 'sambanova', baseURL: 'https://api.sambanova.ai/v1' }
