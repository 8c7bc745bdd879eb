import type { ChatRequest as OllamaChatRequest, Ollama } from 'ollama'
import { AppErrorException } from '../../../../shared/errors/app-error'
import { PULL_CANCELLED_STATUS, PULL_ERROR_STATUS } from '../../../../shared/local/pull-progress'
import { toRawPullEnding, toRawPullEvent } from './pull-events'
import { nativeChatStream } from '../../stream/run-chat-stream'
import type { StreamEvent } from '../../../../shared/stream/events'
import type {
  CallOptions,
  ChatRequest,
  EmbeddingsRequest,
  EmbeddingsResult,
  ModelsResult,
  ProviderFactory,
  ProviderRuntime,
  PullModelRequest,
  PullProgress
} from '../../types'
import { toOllamaMessages, toOllamaTools } from './build-ollama-messages'
import { contextLengthOf, createOllamaClient, normaliseOllamaBaseUrl } from './ollama-client'
import { ollamaChunkTransformer, type OllamaChatChunk } from './ollama-chunk-transformer'
import { toOllamaError } from './ollama-errors'
import { chooseNumCtx } from './ollama-num-ctx'
import { loadProviderModels } from '../../../../shared/catalogue/loader'
import { processModelList, type FetchedModel } from '../../../../shared/catalogue/model-list'

export interface OllamaRuntimeOptions {
  /** The user's num_ctx for a model (settings); wins over the computed value. */
  numCtxOverride?: (model: string) => number | undefined
}

const SDK_NO_DONE = 'Did not receive done or success response in stream.'

/**
 * The SDK throws for two things that are not transport failures: a stream that ends
 * without `done` (we let it end, so the runner reports it as interrupted) and an
 * `{"error": …}` line from the server (a plain Error; we pass it on as a chunk so it is
 * reported as Ollama's own error, not mistaken for a dropped connection).
 */
async function* endQuietly(source: AsyncIterable<OllamaChatChunk>): AsyncGenerator<OllamaChatChunk> {
  try {
    yield* source
  } catch (error) {
    if (error instanceof Error && error.message === SDK_NO_DONE) return
    if (error instanceof Error && error.constructor === Error && error.cause === undefined) {
      yield { error: error.message }
      return
    }
    throw error
  }
}

/** Ollama (local server, no key): chat, list, embeddings, pull (providers.md §7). */
export function createOllamaRuntimeWith(runtimeOptions: OllamaRuntimeOptions = {}): ProviderFactory {
  return (credentials, context) => {
    const provider = context.providerId
    // An unparsable base URL fails here, before any request (InvalidOllamaArgs).
    const baseUrl = normaliseOllamaBaseUrl(credentials.baseURL)
    const apiKey = credentials.apiKey?.trim()
    /** Context windows from /api/show, once per model. */
    const windows = new Map<string, Promise<number | undefined>>()

    const client = (options?: CallOptions, signal?: AbortSignal): Promise<Ollama> => {
      const base = options?.fetch ?? fetch
      const extra: Record<string, string> = { ...options?.headers, ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) }
      const signals = [signal, options?.signal].filter((s): s is AbortSignal => s !== undefined)
      const wrapped: typeof fetch = (url, init) => {
        const all = init?.signal ? [init.signal, ...signals] : signals
        const headers = { ...(init?.headers as Record<string, string> | undefined), ...extra }
        return base(url, { ...init, headers, ...(all.length ? { signal: all.length === 1 ? all[0] : AbortSignal.any(all) } : {}) })
      }
      return createOllamaClient(baseUrl, wrapped)
    }
    const fail = (error: unknown, model?: string): never => {
      throw error instanceof AppErrorException ? error : new AppErrorException({ ...toOllamaError(error, model), provider })
    }
    const contextWindow = (model: string, options?: CallOptions) => {
      let known = windows.get(model)
      if (!known) {
        known = client(options)
          .then((sdk) => sdk.show({ model }))
          .then(contextLengthOf)
          .catch(() => {
            windows.delete(model) // a missing model is reported by the chat call itself
            return undefined
          })
        windows.set(model, known)
      }
      return known
    }

    const runtime: ProviderRuntime = {
      id: provider,

      chat(request: ChatRequest, options?: CallOptions) {
        const transformer = ollamaChunkTransformer((message) => ({ ...toOllamaError(new Error(message), request.model), provider }))
        const stream = nativeChatStream({ provider, options, mapError: (error) => ({ ...toOllamaError(error, request.model), provider }) }, transformer, async (signal) => {
          const override = request.contextLength ?? runtimeOptions.numCtxOverride?.(request.model)
          const window = override ? undefined : await contextWindow(request.model, options)
          const body: OllamaChatRequest & { stream: true } = {
            model: request.model,
            messages: await toOllamaMessages(request.messages, options?.fetch ?? fetch),
            stream: true,
            options: {
              num_ctx: chooseNumCtx({ request, contextWindow: window, override }),
              // Ollama's temperature runs 0..1 where others take 0..2 (providers.md §5).
              ...(request.temperature !== undefined ? { temperature: request.temperature / 2 } : {}),
              ...(request.top_p !== undefined ? { top_p: request.top_p } : {}),
              ...(request.stop?.length ? { stop: request.stop } : {}),
              ...(request.max_tokens ? { num_predict: request.max_tokens } : {}),
              ...(request.frequency_penalty !== undefined ? { frequency_penalty: request.frequency_penalty } : {}),
              ...(request.presence_penalty !== undefined ? { presence_penalty: request.presence_penalty } : {})
            }
          }
          const tools = toOllamaTools(request.tools)
          if (tools) body.tools = tools
          if (request.thinking) body.think = request.thinking.type !== 'disabled'
          const chunks = await (await client(options, signal)).chat(body)
          return endQuietly(chunks as AsyncIterable<OllamaChatChunk>)
        })
        // The speed is Ollama's own (eval_count over eval_duration) when its last line gives them.
        return (async function* (): AsyncGenerator<StreamEvent> {
          for await (const event of stream) {
            const tps = event.type === 'speed' ? transformer.tokensPerSecond() : undefined
            yield tps !== undefined && event.type === 'speed' ? { type: 'speed', data: { ...event.data, tps } } : event
          }
        })()
      },

      async models(options?: CallOptions): Promise<ModelsResult> {
        try {
          const { models } = await (await client(options)).list()
          // The same list processing as every provider (product.md §4): matched against the
          // built-in list case-insensitively, abilities as booleans, `enabled` from the catalogue.
          // Which installed models the picker offers is the provider service's choice, not ours.
          const fetched: FetchedModel[] = models.map((m) => ({
            id: m.name,
            type: /embed/i.test(m.name) ? 'embedding' : 'chat',
            // Only a positive signal from the model's families; otherwise the catalogue decides.
            ...((m.details?.families ?? []).some((f) => f === 'clip' || f === 'mllama') ? { vision: true } : {})
          }))
          return { models: processModelList(fetched, { builtin: await loadProviderModels('ollama').catch(() => []) }) }
        } catch (error) {
          return fail(error)
        }
      },

      /** One call per input with model and prompt (providers.md §7). */
      async embeddings(request: EmbeddingsRequest, options?: CallOptions): Promise<EmbeddingsResult> {
        const inputs = Array.isArray(request.input) ? request.input : [request.input]
        const embeddings: number[][] = []
        try {
          const sdk = await client(options)
          for (const prompt of inputs) embeddings.push((await sdk.embeddings({ model: request.model, prompt })).embedding)
        } catch (error) {
          return fail(error, request.model)
        }
        return { embeddings }
      },

      /** Raw pull progress (providers.md §4); the app's pulls go through the PullService. */
      async *pullModel(request: PullModelRequest, options?: CallOptions): AsyncGenerator<PullProgress> {
        try {
          const stream = await (await client(options)).pull({ model: request.model, insecure: request.insecure, stream: true })
          for await (const line of stream) {
            const event = toRawPullEvent(line, request.model)
            if (event) yield event as PullProgress
          }
        } catch (error) {
          const ending = toRawPullEnding(error, request.model)
          const mapped = toOllamaError(error, request.model)
          yield ending.status === 'cancelled'
            ? { status: 'cancelled', model: request.model, error: { errorType: 'ProviderBizError', message: 'Request was cancelled', status: PULL_CANCELLED_STATUS } }
            : { status: 'error', model: request.model, error: { errorType: mapped.errorType, message: mapped.message, status: PULL_ERROR_STATUS } }
        }
      }
    }
    return runtime
  }
}

export const createOllamaRuntime: ProviderFactory = createOllamaRuntimeWith()
