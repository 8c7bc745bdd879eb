import type { OpenAICompatibleConfig } from '../config'

export const qiniu: OpenAICompatibleConfig = { id: 'qiniu', baseURL: 'https://openai.qiniu.com/v1' }
