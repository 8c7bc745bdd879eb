import type { OpenAICompatibleConfig } from '../config'

export const novita: OpenAICompatibleConfig = { id: 'novita', baseURL: 'https://api.novita.ai/v3/openai' }
