import type { OpenAICompatibleConfig } from '../config'
import { openAIImagesWith, sizeFromDimensions } from '../../images/compatible-hooks'

/** Wenxin (Qianfan v2): web search as a body field with citations. */
export const wenxin: OpenAICompatibleConfig = {
  id: 'wenxin',
  baseURL: 'https://qianfan.baidubce.com/v2',
  createImage: openAIImagesWith(sizeFromDimensions),
  embeddings: true,
  chatPayload(body, request) {
    if (request.enabledSearch) body.web_search = { enable: true, enable_citation: true, enable_trace: true }
    return body
  }
}
