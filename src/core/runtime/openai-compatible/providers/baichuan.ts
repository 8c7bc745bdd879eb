import type { OpenAICompatibleConfig } from '../config'

export const baichuan: OpenAICompatibleConfig = { id: 'baichuan', baseURL: 'https://api.baichuan-ai.com/v1' }
