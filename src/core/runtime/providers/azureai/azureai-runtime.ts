import { loadOpenAI } from '../../sdk/load-sdk'
import { requireKeyAndBaseURL } from '../../credentials'
import { mapProviderError } from '../../errors/map-provider-error'
import { applyOpenAIReasoningRules, baseChatBody } from '../../openai-compatible/payload-rules'
import type { CallOptions, ChatRequest, ProviderFactory } from '../../types'
import { openAIWireChat } from '../azure/openai-wire-chat'

/** The Azure AI model-inference API version (query parameter on every call). */
export const AZURE_AI_DEFAULT_API_VERSION = '2024-05-01-preview'

/**
 * Azure AI Foundry / model inference: POST {endpoint}/chat/completions with the key in the
 * `api-key` header (also as Bearer, which serverless endpoints expect), the model in the body.
 */
export const createAzureAIRuntime: ProviderFactory = (credentials, context) => {
  const provider = context.providerId
  const { apiKey, baseURL } = requireKeyAndBaseURL(credentials, provider)
  const endpoint = baseURL.replace(/\/+$/, '')
  const apiVersion = credentials.apiVersion?.trim() || AZURE_AI_DEFAULT_API_VERSION
  const client = async (options: CallOptions | undefined, fetchImpl: typeof fetch) =>
    new (await loadOpenAI()).default({
      apiKey,
      baseURL: endpoint,
      maxRetries: 0,
      logLevel: 'off',
      fetch: fetchImpl,
      defaultQuery: { 'api-version': apiVersion },
      defaultHeaders: { ...options?.headers, 'api-key': apiKey }
    })

  return {
    id: provider,
    chat(request: ChatRequest, options?: CallOptions) {
      return openAIWireChat({
        provider,
        ...(options ? { options } : {}),
        client: (fetchImpl) => client(options, fetchImpl),
        mapError: (error, aborted) => mapProviderError(error, { provider, secrets: [apiKey], baseURL: endpoint, aborted }),
        async body() {
          const body = baseChatBody(request)
          // o-series models served by Azure AI have the same restrictions as on OpenAI.
          applyOpenAIReasoningRules(body)
          return body
        }
      })
    }
  }
}
