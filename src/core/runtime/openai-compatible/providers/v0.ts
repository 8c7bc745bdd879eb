import type { OpenAICompatibleConfig } from '../config'

export const v0: OpenAICompatibleConfig = { id: 'v0', baseURL: 'https://api.v0.dev/v1' }
