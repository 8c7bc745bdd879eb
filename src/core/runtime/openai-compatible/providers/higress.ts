import type { OpenAICompatibleConfig } from '../config'

export const higress: OpenAICompatibleConfig = { id: 'higress', baseURL: 'http://127.0.0.1:8080/v1' }
