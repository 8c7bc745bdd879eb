import type { OpenAICompatibleConfig } from '../config'

export const MODELSCOPE_LIST_WARNING = 'Could not list ModelScope models: check the API key and that your ModelScope account is bound to an Alibaba Cloud account.'

/** ModelScope: a failing list is a warning and an empty list, not an error (providers.md §8). */
export const modelscope: OpenAICompatibleConfig = {
  id: 'modelscope',
  baseURL: 'https://api-inference.modelscope.cn/v1',
  async listModels({ client, options }) {
    try {
      const page = await client.models.list({ signal: options.signal })
      return page.data.map((m) => ({ id: m.id, created: m.created }))
    } catch {
      return { models: [], warning: MODELSCOPE_LIST_WARNING }
    }
  }
}
