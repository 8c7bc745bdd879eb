import Anthropic from '@anthropic-ai/sdk'
import { AppErrorException } from '../../../../shared/errors/app-error'
import { requireApiKey } from '../../credentials'
import { mapProviderError } from '../../errors/map-provider-error'
import { runChatStream } from '../../stream/run-chat-stream'
import type { CallOptions, ChatRequest, ModelsResult, ProviderFactory, RemoteModelCard } from '../../types'
import type { AnthropicStreamChunk } from './anthropic-stream-transformer'
import { anthropicChunkTransformer } from './anthropic-chunk-transformer'
import { claudeMaxOutput } from './anthropic-models'
import { buildAnthropicPayload, type AnthropicChatMessage, type AnthropicPayloadOptions } from './build-anthropic-payload'

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com'

export type AnthropicRuntimeSettings = AnthropicPayloadOptions

/** `created_at` is an ISO date; the list shows the day only. */
const toDay = (iso: string | undefined) => (iso ? iso.slice(0, 10) : undefined)

/**
 * Anthropic Messages API through @anthropic-ai/sdk. SDK retries are off: runChatStream
 * retries before the first chunk only, and shows each retry to the caller.
 */
export function createAnthropicRuntimeWith(settings: AnthropicRuntimeSettings = {}): ProviderFactory {
  return (credentials, context) => {
    const provider = context.providerId
    const apiKey = requireApiKey(credentials, provider)
    const baseURL = credentials.baseURL?.trim() || ANTHROPIC_DEFAULT_BASE_URL
    const client = (options?: CallOptions) =>
      // The documented `x-api-key` header rather than the SDK's default Bearer scheme:
      // Anthropic-compatible proxies behind a custom base URL expect it.
      new Anthropic({
        apiKey: null,
        authToken: null,
        baseURL,
        maxRetries: 0,
        defaultHeaders: { ...options?.headers, 'x-api-key': apiKey },
        ...(options?.fetch ? { fetch: options.fetch } : {})
      })
    const mapError = (error: unknown, aborted = false) => mapProviderError(error, { provider, secrets: [apiKey], baseURL, aborted })

    return {
      id: provider,
      chat(request: ChatRequest & { messages: AnthropicChatMessage[] }, options?: CallOptions) {
        const transformer = anthropicChunkTransformer()
        return runChatStream<AnthropicStreamChunk>({
          provider,
          options,
          transformer,
          sawEndMarker: transformer.sawEndMarker,
          mapError,
          async open(signal) {
            const body = { ...buildAnthropicPayload(request, settings), stream: true }
            const stream = await client(options).messages.create(body as unknown as Anthropic.MessageCreateParamsStreaming, { signal })
            return stream as unknown as AsyncIterable<AnthropicStreamChunk>
          }
        })
      },

      async models(options?: CallOptions): Promise<ModelsResult> {
        try {
          const models: RemoteModelCard[] = []
          for await (const m of client(options).models.list({ limit: 1000 }, { signal: options?.signal })) {
            const card: RemoteModelCard = { id: m.id, displayName: m.display_name, type: 'chat', enabled: true }
            const released = toDay(m.created_at)
            if (released) card.releasedAt = released
            const maxOutput = claudeMaxOutput(m.id)
            if (maxOutput) card.maxOutput = maxOutput
            models.push(card)
          }
          return { models }
        } catch (error) {
          throw new AppErrorException(mapError(error, options?.signal?.aborted))
        }
      }
    }
  }
}

export const createAnthropicRuntime: ProviderFactory = createAnthropicRuntimeWith()
