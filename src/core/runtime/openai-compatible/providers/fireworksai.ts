import type { OpenAICompatibleConfig } from '../config'

export const fireworksai: OpenAICompatibleConfig = { id: 'fireworksai', baseURL: 'https://api.fireworks.ai/inference/v1' }
