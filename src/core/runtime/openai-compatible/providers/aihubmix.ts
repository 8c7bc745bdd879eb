import type { OpenAICompatibleConfig } from '../config'
import { openAIImagesHook } from '../../images/compatible-hooks'

/** AiHubMix routes many vendors; it also serves the Responses API when asked for it (apiMode). */
export const aihubmix: OpenAICompatibleConfig = {
  id: 'aihubmix',
  baseURL: 'https://aihubmix.com/v1',
  createImage: openAIImagesHook,
  useResponsesApi: (request) => request.apiMode === 'responses'
}
