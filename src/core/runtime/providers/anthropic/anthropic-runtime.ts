import type Anthropic from '@anthropic-ai/sdk'
import { loadAnthropic } from '../../sdk/load-sdk'
import { loadProviderModels } from '../../../../shared/catalogue/loader'
import { getModelProperty } from '../../../../shared/catalogue/lookup'
import { processModelList, type FetchedModel } from '../../../../shared/catalogue/model-list'
import { AppErrorException } from '../../../../shared/errors/app-error'
import { requireApiKey } from '../../credentials'
import { mapProviderError } from '../../errors/map-provider-error'
import { nativeChatStream } from '../../stream/run-chat-stream'
import type { CallOptions, ChatRequest, ModelsResult, ProviderFactory } from '../../types'
import type { AnthropicStreamChunk } from './anthropic-stream-transformer'
import { anthropicChunkTransformer } from './anthropic-chunk-transformer'
import { claudeMaxOutput } from './anthropic-models'
import { buildAnthropicPayload, type AnthropicChatMessage, type AnthropicPayloadOptions } from './build-anthropic-payload'
import { logged } from '../../../log/logger'
import { anthropicErrorRules } from './anthropic-error-rule'

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com'

export type AnthropicRuntimeSettings = AnthropicPayloadOptions

/**
 * Anthropic Messages API through @anthropic-ai/sdk. SDK retries are off: runChatStream
 * retries before the first chunk only, and shows each retry to the caller.
 */
export function createAnthropicRuntimeWith(settings: AnthropicRuntimeSettings = {}): ProviderFactory {
  return (credentials, context) => {
    const provider = context.providerId
    const apiKey = requireApiKey(credentials, provider)
    const baseURL = credentials.baseURL?.trim() || ANTHROPIC_DEFAULT_BASE_URL
    const client = async (options?: CallOptions) =>
      // The documented `x-api-key` header rather than the SDK's default Bearer scheme:
      // Anthropic-compatible proxies behind a custom base URL expect it.
      new (await loadAnthropic()).default({
        apiKey: null,
        authToken: null,
        baseURL,
        maxRetries: 0,
        defaultHeaders: { ...options?.headers, 'x-api-key': apiKey },
        ...(options?.fetch ? { fetch: options.fetch } : {})
      })
    const mapError = (error: unknown, aborted = false) => mapProviderError(error, { provider, secrets: [apiKey], baseURL, aborted, rules: anthropicErrorRules })

    return {
      id: provider,
      chat(request: ChatRequest & { messages: AnthropicChatMessage[] }, options?: CallOptions) {
        // A local-API request with server tools: its client is given the upstream's own blocks.
        const transformer = anthropicChunkTransformer({ native: request.nativeTools?.api === 'anthropic-messages' })
        return nativeChatStream({ provider, options, mapError }, transformer, async (signal) => {
          // "The model's max" (providers.md §7): the catalogue first, the built-in table after.
          const maxOutput = settings.maxOutput ?? (await getModelProperty(request.model, 'maxOutput', provider).catch(logged(provider, 'reading the catalogue max output'))) ?? undefined
          // Anthropic's own API takes system turns mid-conversation; a compatible proxy may not.
          const systemInMessages = settings.systemInMessages ?? baseURL.replace(/\/+$/, '') === ANTHROPIC_DEFAULT_BASE_URL
          const body = { ...buildAnthropicPayload(request, { ...settings, systemInMessages, nativeBlocks: true, ...(maxOutput ? { maxOutput } : {}) }), stream: true }
          const stream = await (await client(options)).messages.create(body as unknown as Anthropic.MessageCreateParamsStreaming, { signal })
          return stream as unknown as AsyncIterable<AnthropicStreamChunk>
        })
      },

      async models(options?: CallOptions): Promise<ModelsResult> {
        const fetched: FetchedModel[] = []
        try {
          for await (const m of (await client(options)).models.list({ limit: 1000 }, { signal: options?.signal })) {
            const maxOutput = claudeMaxOutput(m.id)
            fetched.push({ id: m.id, displayName: m.display_name, type: 'chat', created: m.created_at, ...(maxOutput ? { maxOutput } : {}) })
          }
        } catch (error) {
          throw new AppErrorException(mapError(error, options?.signal?.aborted))
        }
        // Display names, context windows and abilities come from the built-in list when it knows the id.
        const builtin = await loadProviderModels(provider).catch(() => [])
        return { models: processModelList(fetched, { builtin }) }
      }
    }
  }
}

export const createAnthropicRuntime: ProviderFactory = createAnthropicRuntimeWith()
