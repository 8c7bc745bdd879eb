import type { OpenAICompatibleConfig } from '../config'

export const upstage: OpenAICompatibleConfig = { id: 'upstage', baseURL: 'https://api.upstage.ai/v1/solar' }
