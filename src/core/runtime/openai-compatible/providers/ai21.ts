import type { OpenAICompatibleConfig } from '../config'

export const ai21: OpenAICompatibleConfig = { id: 'ai21', baseURL: 'https://api.ai21.com/studio/v1' }
