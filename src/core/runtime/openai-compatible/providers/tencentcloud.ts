import type { OpenAICompatibleConfig } from '../config'

export const tencentcloud: OpenAICompatibleConfig = { id: 'tencentcloud', baseURL: 'https://api.lkeap.cloud.tencent.com/v1' }
