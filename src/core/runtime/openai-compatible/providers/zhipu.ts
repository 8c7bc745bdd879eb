import type { FetchedModel } from '../../../../shared/catalogue/model-list'
import type { OpenAICompatibleConfig } from '../config'
import { clamp, halveTemperature } from '../payload-rules'
import { openAIImagesHook } from '../../images/compatible-hooks'

/**
 * Zhipu: temperature halved; glm-4v max tokens ≤ 1024, glm-zero-preview ≤ 15300,
 * glm-4-alltools temperature and top_p clamped 0.01..0.99; search tool with search_std;
 * the model list is its own paged API (pageSize 100, pageNum 1).
 */
export const zhipu: OpenAICompatibleConfig = {
  id: 'zhipu',
  baseURL: 'https://open.bigmodel.cn/api/paas/v4',
  createImage: openAIImagesHook,
  embeddings: true,
  chatPayload(body, request) {
    halveTemperature(body)
    const model = body.model
    if (model.startsWith('glm-4v') && typeof body.max_tokens === 'number') body.max_tokens = Math.min(body.max_tokens, 1024)
    if (model === 'glm-zero-preview' && typeof body.max_tokens === 'number') body.max_tokens = Math.min(body.max_tokens, 15300)
    if (model.startsWith('glm-4-alltools')) {
      if (typeof body.temperature === 'number') body.temperature = clamp(body.temperature, 0.01, 0.99)
      if (typeof body.top_p === 'number') body.top_p = clamp(body.top_p, 0.01, 0.99)
    }
    if (request.enabledSearch) {
      body.tools = [...(body.tools ?? []), { type: 'web_search', web_search: { enable: true, search_engine: 'search_std', search_result: true } }]
    }
    return body
  },
  async listModels({ baseURL, apiKey, fetch, options }) {
    const url = new URL('https://open.bigmodel.cn/api/fine-tuning/model_center/list')
    // Tests (and proxies) point the base URL elsewhere: keep the list on the same origin then.
    if (!baseURL.startsWith('https://open.bigmodel.cn')) url.href = new URL('/api/fine-tuning/model_center/list', baseURL).href
    url.searchParams.set('pageSize', '100')
    url.searchParams.set('pageNum', '1')
    const response = await fetch(url, { headers: { Authorization: `Bearer ${apiKey}`, 'Bigmodel-Organization': 'lobehub', 'Bigmodel-Project': 'lobechat' }, signal: options.signal })
    if (!response.ok) throw Object.assign(new Error(`${response.status} ${await response.text()}`), { status: response.status })
    const json = (await response.json()) as { rows?: Array<{ modelCode: string; modelName?: string; description?: string }> }
    return (json.rows ?? []).map((row): FetchedModel => ({ id: row.modelCode, displayName: row.modelName, description: row.description }))
  }
}
