import type { OpenAICompatibleConfig } from '../config'
import { xaiMaxSearchResults } from '../payload-rules'
import { openAIImagesHook } from '../../images/compatible-hooks'

/** xAI live search: 1..30 results, default 15, citations returned. Usage counts reasoning outside completion tokens. */
export const xai: OpenAICompatibleConfig = {
  id: 'xai',
  baseURL: 'https://api.x.ai/v1',
  createImage: openAIImagesHook,
  chatPayload(body, request) {
    if (request.enabledSearch) {
      body.search_parameters = { mode: 'auto', return_citations: true, max_search_results: xaiMaxSearchResults(request.searchMaxResults) }
    }
    return body
  }
}
