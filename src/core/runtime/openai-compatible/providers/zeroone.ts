import type { OpenAICompatibleConfig } from '../config'

export const zeroone: OpenAICompatibleConfig = { id: 'zeroone', baseURL: 'https://api.lingyiwanwu.com/v1' }
