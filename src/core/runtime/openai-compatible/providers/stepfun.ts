import type { OpenAICompatibleConfig } from '../config'
import { openAIImagesWith, seedStepsCfg } from '../../images/compatible-hooks'

/** Stepfun: web search is a `web_search` tool. */
export const stepfun: OpenAICompatibleConfig = {
  id: 'stepfun',
  baseURL: 'https://api.stepfun.com/v1',
  createImage: openAIImagesWith(seedStepsCfg),
  textToSpeech: true,
  speechToText: true,
  chatPayload(body, request) {
    if (request.enabledSearch) body.tools = [...(body.tools ?? []), { type: 'web_search', function: { description: 'use web_search to search information on the internet' } }]
    return body
  }
}
