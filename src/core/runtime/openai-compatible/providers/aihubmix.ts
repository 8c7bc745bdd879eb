import type { OpenAICompatibleConfig } from '../config'

/** AiHubMix routes many vendors; it also serves the Responses API when asked for it (apiMode). */
export const aihubmix: OpenAICompatibleConfig = {
  id: 'aihubmix',
  baseURL: 'https://aihubmix.com/v1',
  useResponsesApi: (request) => request.apiMode === 'responses'
}
