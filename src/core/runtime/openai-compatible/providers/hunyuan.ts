import type { OpenAICompatibleConfig } from '../config'

export const hunyuan: OpenAICompatibleConfig = { id: 'hunyuan', baseURL: 'https://tokenhub.tencentmaas.com/v1' }
