import type { OpenAICompatibleConfig } from '../config'
import { applyOpenAIReasoningRules } from '../payload-rules'
import { openAIImagesHook } from '../../images/compatible-hooks'

/** Models the Chat Completions API does not serve: they exist only on the Responses API. */
const RESPONSES_ONLY = [/^o1-pro/, /^o3-pro/, /^o3-deep-research/, /^o4-mini-deep-research/, /^codex-mini/, /^computer-use-preview/, /^gpt-5(\.\d+)?-pro/, /^gpt-5(\.\d+)?-codex/]

export const needsResponsesApi = (model: string): boolean => RESPONSES_ONLY.some((re) => re.test(model.replace(/^openai\//, '')))

export const openai: OpenAICompatibleConfig = {
  id: 'openai',
  baseURL: 'https://api.openai.com/v1',
  createImage: openAIImagesHook,
  embeddings: true,
  textToSpeech: true,
  speechToText: true,
  useResponsesApi: (request) => request.apiMode === 'responses' || needsResponsesApi(request.model),
  // Built-in tools exist only on the Responses API: for the models the runtime sends there.
  builtInTools: needsResponsesApi,
  chatPayload(body) {
    applyOpenAIReasoningRules(body)
    return body
  }
}
