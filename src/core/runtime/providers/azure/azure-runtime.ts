import { loadOpenAI } from '../../sdk/load-sdk'
import { AppErrorException, type AppError } from '../../../../shared/errors/app-error'
import { requireKeyAndBaseURL } from '../../credentials'
import { mapProviderError, readErrorFacts } from '../../errors/map-provider-error'
import { applyOpenAIReasoningRules, azureReasoningEffort, baseChatBody } from '../../openai-compatible/payload-rules'
import { runtimeError } from '../../runtime-error'
import type { CallOptions, ChatRequest, EmbeddingsRequest, EmbeddingsResult, ProviderFactory } from '../../types'
import { azureDeploymentName } from './azure-deployment'
import { openAIWireChat } from './openai-wire-chat'
import { createOpenAIImage } from '../../images/openai-images'

/** Recent enough for reasoning_effort, max_completion_tokens and stream usage. */
export const AZURE_DEFAULT_API_VERSION = '2025-04-01-preview'

/**
 * Azure OpenAI: key and base URL both required; the model id is sent as its deployment
 * (catalogue config.deploymentName). Reasoning models follow OpenAI's rules; 'minimal'
 * effort becomes 'low'. DeploymentNotFound names the deployment that is missing.
 */
export const createAzureRuntime: ProviderFactory = (credentials, context) => {
  const provider = context.providerId
  const { apiKey, baseURL } = requireKeyAndBaseURL(credentials, provider)
  const apiVersion = credentials.apiVersion?.trim() || AZURE_DEFAULT_API_VERSION
  const client = async (options?: CallOptions, fetchImpl?: typeof fetch) =>
    new (await loadOpenAI()).AzureOpenAI({
      apiKey,
      endpoint: baseURL,
      apiVersion,
      maxRetries: 0,
      logLevel: 'off',
      fetch: fetchImpl ?? options?.fetch ?? globalThis.fetch,
      ...(options?.headers ? { defaultHeaders: options.headers } : {})
    })

  const mapError = (deployment: string) => (error: unknown, aborted: boolean): AppError => {
    const base = mapProviderError(error, { provider, secrets: [apiKey], baseURL, aborted })
    if (!aborted && readErrorFacts(error).code === 'DeploymentNotFound') {
      return runtimeError('ModelNotFound', `Azure deployment "${deployment}" was not found: ${base.message}`, provider, {
        ...(base.detail as object | undefined),
        deployId: deployment
      })
    }
    return base
  }

  return {
    id: provider,
    // Azure OpenAI's embeddings take token ids as OpenAI's do.
    embeddingsTakeTokenIds: true,
    chat(request: ChatRequest, options?: CallOptions) {
      let deployment = request.model
      return openAIWireChat({
        provider,
        ...(options ? { options } : {}),
        client: (fetchImpl) => client(options, fetchImpl),
        mapError: (error, aborted) => mapError(deployment)(error, aborted),
        async body() {
          deployment = await azureDeploymentName(request.model, provider)
          const body = baseChatBody(request)
          applyOpenAIReasoningRules(body)
          const effort = azureReasoningEffort(body.reasoning_effort)
          if (effort) body.reasoning_effort = effort
          body.model = deployment
          return body
        }
      })
    },

    async embeddings(request: EmbeddingsRequest, options?: CallOptions): Promise<EmbeddingsResult> {
      const deployment = await azureDeploymentName(request.model, provider)
      try {
        const result = await (await client(options)).embeddings.create(
          { model: deployment, input: request.tokenIds ?? request.input, encoding_format: 'float', ...(request.dimensions ? { dimensions: request.dimensions } : {}) },
          { signal: options?.signal }
        )
        const rows = [...result.data].sort((a, b) => a.index - b.index)
        return { embeddings: rows.map((r) => r.embedding as number[]), usage: { promptTokens: result.usage?.prompt_tokens, totalTokens: result.usage?.total_tokens } }
      } catch (error) {
        throw new AppErrorException(mapError(deployment)(error, options?.signal?.aborted ?? false))
      }
    },

    /** gpt-image / dall-e deployments: OpenAI images (generate, or edit with input images). */
    async createImage(request, options) {
      const deployment = await azureDeploymentName(request.model, provider)
      try {
        return await createOpenAIImage({ provider, client: await client(options), fetch: options?.fetch ?? globalThis.fetch }, { ...request, model: deployment }, options)
      } catch (error) {
        if (error instanceof AppErrorException) throw error
        throw new AppErrorException(mapError(deployment)(error, options?.signal?.aborted ?? false))
      }
    }
  }
}
