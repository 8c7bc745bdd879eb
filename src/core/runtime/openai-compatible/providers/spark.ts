import type { OpenAICompatibleConfig } from '../config'

/** Spark: web search tool with the 'normal' strategy. */
export const spark: OpenAICompatibleConfig = {
  id: 'spark',
  baseURL: 'https://spark-api-open.xf-yun.com/v1',
  chatPayload(body, request) {
    if (request.enabledSearch) body.tools = [...(body.tools ?? []), { type: 'web_search', web_search: { enable: true, search_mode: 'normal' } }]
    return body
  }
}
