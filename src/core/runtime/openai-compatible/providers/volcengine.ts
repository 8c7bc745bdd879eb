import type { OpenAICompatibleConfig } from '../config'
import { volcengineSupportsThinking } from '../payload-rules'
import { openAIImagesWith, sizeFromDimensions } from '../../images/compatible-hooks'

/** Volcengine Ark: `thinking` only for the models that accept it. */
export const volcengine: OpenAICompatibleConfig = {
  id: 'volcengine',
  baseURL: 'https://ark.cn-beijing.volces.com/api/v3',
  createImage: openAIImagesWith(sizeFromDimensions),
  embeddings: true,
  useResponsesApi: (request) => request.apiMode === 'responses',
  chatPayload(body, request) {
    if (request.thinking && volcengineSupportsThinking(body.model)) body.thinking = { type: request.thinking.type === 'adaptive' ? 'auto' : request.thinking.type }
    return body
  }
}
