import type { OpenAICompatibleConfig } from '../config'

export const search1api: OpenAICompatibleConfig = { id: 'search1api', baseURL: 'https://api.search1api.com/v1' }
