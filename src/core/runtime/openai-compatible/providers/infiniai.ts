import type { OpenAICompatibleConfig } from '../config'

export const infiniai: OpenAICompatibleConfig = { id: 'infiniai', baseURL: 'https://cloud.infini-ai.com/maas/v1' }
