import type { OpenAICompatibleConfig } from '../config'

export const aihubmix: OpenAICompatibleConfig = { id: 'aihubmix', baseURL: 'https://aihubmix.com/v1' }
