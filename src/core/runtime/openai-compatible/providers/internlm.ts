import type { OpenAICompatibleConfig } from '../config'

export const internlm: OpenAICompatibleConfig = { id: 'internlm', baseURL: 'https://chat.intern-ai.org.cn/api/v1' }
