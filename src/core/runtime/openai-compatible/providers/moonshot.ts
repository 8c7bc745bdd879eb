import type { OpenAICompatibleConfig } from '../config'
import { halveTemperature } from '../payload-rules'

/** Moonshot: temperature halved; web search is its built-in `$web_search` function. */
export const moonshot: OpenAICompatibleConfig = {
  id: 'moonshot',
  baseURL: 'https://api.moonshot.cn/v1',
  chatPayload(body, request) {
    halveTemperature(body)
    if (request.enabledSearch) body.tools = [...(body.tools ?? []), { type: 'builtin_function', function: { name: '$web_search' } }]
    return body
  }
}
