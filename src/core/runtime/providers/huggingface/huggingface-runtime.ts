import { loadOpenAI } from '../../sdk/load-sdk'
import { AppErrorException, type AppError } from '../../../../shared/errors/app-error'
import { processModelList } from '../../../../shared/catalogue/model-list'
import { loadProviderModels } from '../../../../shared/catalogue/loader'
import { requireApiKey } from '../../credentials'
import { mapProviderError } from '../../errors/map-provider-error'
import { baseChatBody, clamp } from '../../openai-compatible/payload-rules'
import type { CallOptions, ChatRequest, ModelsResult, ProviderFactory } from '../../types'
import { openAIWireChat } from '../azure/openai-wire-chat'
import type { ErrorTypeName } from '../../../../shared/errors/catalogue'

/** Hugging Face's OpenAI-compatible inference router. */
export const HUGGINGFACE_DEFAULT_BASE_URL = 'https://router.huggingface.co/v1'

/**
 * top_p as providers.md §5 wants it for Hugging Face (the MiniMax and Cohere rule): dropped
 * unless in range (0 < top_p ≤ 1), then clamped into 0.01..0.99 because TGI rejects exactly 1.
 * A top_p of 0 is dropped (the server's default), not sent as 0.01.
 */
export function huggingFaceTopP(topP: number | undefined): number | undefined {
  if (topP === undefined || !Number.isFinite(topP) || topP <= 0 || topP > 1) return undefined
  return clamp(topP, 0.01, 0.99)
}

/** The two stream error texts Hugging Face sends in place of a status (providers.md §8). */
export function huggingFaceErrorType(message: string): ErrorTypeName | undefined {
  if (message.includes('Model requires a Pro subscription')) return 'PermissionDenied'
  if (message.includes('the token seems invalid')) return 'InvalidProviderAPIKey'
  return undefined
}

export const createHuggingFaceRuntime: ProviderFactory = (credentials, context) => {
  const provider = context.providerId
  const apiKey = requireApiKey(credentials, provider)
  const baseURL = (credentials.baseURL?.trim() || HUGGINGFACE_DEFAULT_BASE_URL).replace(/\/+$/, '')
  const client = async (options: CallOptions | undefined, fetchImpl?: typeof fetch) =>
    new (await loadOpenAI()).default({
      apiKey,
      baseURL,
      maxRetries: 0,
      logLevel: 'off',
      fetch: fetchImpl ?? options?.fetch ?? globalThis.fetch,
      ...(options?.headers ? { defaultHeaders: options.headers } : {})
    })
  // huggingFaceErrorType is this provider's spec rule (./huggingface-spec): mapProviderError applies it.
  const mapError = (error: unknown, aborted: boolean): AppError => mapProviderError(error, { provider, secrets: [apiKey], baseURL, aborted })

  return {
    id: provider,
    chat(request: ChatRequest, options?: CallOptions) {
      return openAIWireChat({
        provider,
        ...(options ? { options } : {}),
        client: (fetchImpl) => client(options, fetchImpl),
        mapError,
        async body() {
          const body = baseChatBody(request)
          const topP = huggingFaceTopP(body.top_p)
          if (topP === undefined) delete body.top_p
          else body.top_p = topP
          return body
        }
      })
    },

    async models(options?: CallOptions): Promise<ModelsResult> {
      try {
        const page = await (await client(options)).models.list({ signal: options?.signal })
        const builtin = await loadProviderModels(provider).catch(() => [])
        return { models: processModelList(page.data.map((m) => ({ id: m.id, created: m.created })), { builtin }) }
      } catch (error) {
        throw new AppErrorException(mapError(error, options?.signal?.aborted ?? false))
      }
    }
  }
}
