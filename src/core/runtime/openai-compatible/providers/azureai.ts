import { loadProviderModels } from '../../../../shared/catalogue/loader'
import type { OpenAICompatibleConfig } from '../config'
import { applyOpenAIReasoningRules } from '../payload-rules'

/** The Azure AI model-inference API version (query parameter on every call). */
export const AZURE_AI_DEFAULT_API_VERSION = '2024-05-01-preview'

/**
 * Azure AI Foundry / model inference: POST {endpoint}/chat/completions with the key in the
 * `api-key` header (and as Bearer, which serverless endpoints expect), the model in the body,
 * the API version as a query parameter. Every endpoint is the user's own: no default base URL.
 */
export const azureai: OpenAICompatibleConfig = {
  id: 'azureai',
  baseURL: '',
  client: ({ apiKey, credentials }) => ({
    query: { 'api-version': credentials.apiVersion?.trim() || AZURE_AI_DEFAULT_API_VERSION },
    ...(apiKey ? { headers: { 'api-key': apiKey } } : {})
  }),
  chatPayload(body) {
    // o-series models served by Azure AI have the same restrictions as on OpenAI.
    applyOpenAIReasoningRules(body)
    return body
  },
  // The inference API has no model list: the models it serves are the catalogue's.
  listModels: async ({ provider }) => (await loadProviderModels(provider)).map((m) => ({ id: m.id }))
}
