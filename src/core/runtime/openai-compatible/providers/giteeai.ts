import type { OpenAICompatibleConfig } from '../config'

export const giteeai: OpenAICompatibleConfig = { id: 'giteeai', baseURL: 'https://ai.gitee.com/v1' }
