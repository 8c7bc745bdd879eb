import type { OpenAICompatibleConfig } from '../config'

export const ai360: OpenAICompatibleConfig = { id: 'ai360', baseURL: 'https://api.360.cn/v1' }
