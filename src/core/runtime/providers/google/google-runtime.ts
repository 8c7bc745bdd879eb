import type { GoogleGenAI } from '@google/genai'
import { loadGoogleGenAI } from '../../sdk/load-sdk'
import { loadProviderModels } from '../../../../shared/catalogue/loader'
import { processModelList, type FetchedModel } from '../../../../shared/catalogue/model-list'
import { AppErrorException, type AppError } from '../../../../shared/errors/app-error'
import { requireApiKey } from '../../credentials'
import { nativeChatStream } from '../../stream/run-chat-stream'
import { assertModelIdIsValue } from '../../model-path'
import type {
  CallOptions,
  ChatRequest,
  CreateImageRequest,
  CreateImageResult,
  EmbeddingsRequest,
  EmbeddingsResult,
  ModelsResult,
  ProviderFactory,
  ProviderRuntime
} from '../../types'
import { buildGoogleConfig, loadImageWith, toGoogleContents } from './build-google-request'
import { googleChunkTransformer } from './google-chunk-transformer'
import type { GoogleStreamChunk } from './google-stream-transformer'
import { mapGoogleError } from './map-google-error'
import { predictImagen } from './predict-imagen'

export const GOOGLE_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com'

/** How a Gemini-wire runtime gets its SDK client: API key (Gemini API) or service account (Vertex). */
export interface GoogleClientSource {
  provider: string
  /** Secrets to keep out of errors. */
  secrets: Array<string | undefined>
  baseURL?: string
  client(options?: CallOptions): Promise<GoogleGenAI>
  /** Provider-specific errors first (Vertex: credentials rejected while signing or exchanging the token). */
  refineError?(error: unknown): AppError | undefined
  /** Replaces the SDK's generateImages where the SDK does not offer it (Gemini API). */
  generateImage?(request: CreateImageRequest, options?: CallOptions): Promise<CreateImageResult>
}

const httpOptions = (baseURL: string | undefined, options?: CallOptions) => ({
  ...(baseURL ? { baseUrl: baseURL } : {}),
  ...(options?.headers ? { headers: options.headers } : {}),
  ...(options?.fetch ? { fetch: options.fetch } : {}),
  // runChatStream owns retries (before the first chunk only, and visibly).
  retryOptions: { attempts: 1 }
})

/** The runtime shared by Google (Gemini API) and Vertex AI: same wire, same events. */
export function createGeminiWireRuntime(source: GoogleClientSource): ProviderRuntime {
  const { provider } = source
  const mapError = (error: unknown, aborted = false): AppError =>
    error instanceof AppErrorException && !aborted
      ? error.error
      : ((aborted ? undefined : source.refineError?.(error)) ?? mapGoogleError(error, { provider, secrets: source.secrets, baseURL: source.baseURL, aborted }))
  const fail = (error: unknown, options?: CallOptions): never => {
    if (error instanceof AppErrorException) throw error
    throw new AppErrorException(mapError(error, options?.signal?.aborted))
  }

  return {
    id: provider,
    chat(request: ChatRequest, options?: CallOptions) {
      const transformer = googleChunkTransformer({ provider })
      return nativeChatStream({ provider, options, mapError }, transformer, async (signal) => {
        // The SDK puts the id into the URL as it is (`models/{id}:streamGenerateContent`).
        assertModelIdIsValue(request.model, provider)
        const { systemInstruction, contents } = await toGoogleContents(request.messages, loadImageWith(options?.fetch ?? fetch))
        const config = { ...buildGoogleConfig(request, systemInstruction), abortSignal: signal }
        const stream = await (await source.client(options)).models.generateContentStream({ model: request.model, contents, config } as Parameters<GoogleGenAI['models']['generateContentStream']>[0])
        return stream as unknown as AsyncIterable<GoogleStreamChunk>
      })
    },

    async models(options?: CallOptions): Promise<ModelsResult> {
      const fetched: FetchedModel[] = []
      try {
        const pager = await (await source.client(options)).models.list({ config: { pageSize: 1000, ...(options?.signal ? { abortSignal: options.signal } : {}) } })
        for await (const m of pager) {
          const id = (m.name ?? '').replace(/^models\//, '')
          if (!id) continue
          fetched.push({
            id,
            type: id.startsWith('imagen') ? 'image' : id.includes('embedding') ? 'embedding' : 'chat',
            ...(m.displayName ? { displayName: m.displayName } : {}),
            ...(m.inputTokenLimit ? { contextWindowTokens: m.inputTokenLimit + (m.outputTokenLimit ?? 0) } : {}),
            ...(m.outputTokenLimit ? { maxOutput: m.outputTokenLimit } : {}),
            ...(m.description ? { description: m.description } : {})
          })
        }
      } catch (error) {
        return fail(error, options)
      }
      const builtin = await loadProviderModels(provider).catch(() => [])
      return { models: processModelList(fetched, { builtin }) }
    },

    async embeddings(request: EmbeddingsRequest, options?: CallOptions): Promise<EmbeddingsResult> {
      try {
        assertModelIdIsValue(request.model, provider)
        const inputs = Array.isArray(request.input) ? request.input : [request.input]
        const result = await (await source.client(options)).models.embedContent({
          model: request.model,
          contents: inputs,
          config: { ...(request.dimensions ? { outputDimensionality: request.dimensions } : {}), ...(options?.signal ? { abortSignal: options.signal } : {}) }
        })
        return { embeddings: (result.embeddings ?? []).map((e) => e.values ?? []) }
      } catch (error) {
        return fail(error, options)
      }
    },

    /** Imagen through generateImages, one image per call (providers.md §7). */
    async createImage(request: CreateImageRequest, options?: CallOptions): Promise<CreateImageResult> {
      try {
        assertModelIdIsValue(request.model, provider)
        if (source.generateImage) return await source.generateImage(request, options)
        const result = await (await source.client(options)).models.generateImages({
          model: request.model,
          prompt: request.params.prompt,
          config: {
            numberOfImages: 1,
            ...(request.params.aspectRatio ? { aspectRatio: request.params.aspectRatio } : {}),
            ...(options?.signal ? { abortSignal: options.signal } : {})
          }
        })
        const image = result.generatedImages?.[0]?.image
        if (!image?.imageBytes) throw new AppErrorException({ errorType: 'ProviderBizError', message: 'Invalid image response: missing or empty data array', provider })
        return { imageUrl: `data:${image.mimeType ?? 'image/png'};base64,${image.imageBytes}` }
      } catch (error) {
        return fail(error, options)
      }
    }
  }
}

export { httpOptions as googleHttpOptions }

/** Google (Gemini API, AI Studio key). */
export const createGoogleRuntime: ProviderFactory = (credentials, context) => {
  const provider = context.providerId
  const apiKey = requireApiKey(credentials, provider)
  const baseURL = credentials.baseURL?.trim() || undefined
  return createGeminiWireRuntime({
    provider,
    secrets: [apiKey],
    baseURL: baseURL ?? GOOGLE_DEFAULT_BASE_URL,
    // v1beta: thinking, grounding and the model list of providers.md §7 live there.
    client: async (options) => new (await loadGoogleGenAI()).GoogleGenAI({ apiKey, httpOptions: { ...httpOptions(baseURL, options), apiVersion: 'v1beta' } }),
    generateImage: (request, options) => predictImagen({ apiKey, baseURL: baseURL ?? GOOGLE_DEFAULT_BASE_URL, request, options })
  })
}
