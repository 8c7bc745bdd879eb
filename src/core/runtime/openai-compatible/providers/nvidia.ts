import type { OpenAICompatibleConfig } from '../config'

export const nvidia: OpenAICompatibleConfig = { id: 'nvidia', baseURL: 'https://integrate.api.nvidia.com/v1' }
