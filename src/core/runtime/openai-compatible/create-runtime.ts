import type OpenAI from 'openai'
import { loadOpenAI } from '../sdk/load-sdk'
import { getModelProperty } from '../../../shared/catalogue/lookup'
import { loadProviderModels } from '../../../shared/catalogue/loader'
import { isExcludedFromChatList } from '../../../shared/catalogue/chat-exclusion'
import { processModelList, type FetchedModel } from '../../../shared/catalogue/model-list'
import type { CatalogueModel } from '../../../shared/catalogue/types'
import type { ChatPricingContext } from '../../../shared/pricing/lookup-params'
import type { Pricing } from '../../../shared/pricing/types'
import { pricingContextOf } from '../pricing-context'
import { AppErrorException, type AppError } from '../../../shared/errors/app-error'
import type { StreamEvent } from '../../../shared/stream/events'
import { requireApiKey } from '../credentials'
import { mapProviderError } from '../errors/map-provider-error'
import { throwRuntimeError } from '../runtime-error'
import { runChatStream, type ChunkTransformer } from '../stream/run-chat-stream'
import { sseJsonStream } from '../stream/sse-json'
import { DEFAULT_MAX_RETRIES, type CallOptions, type ChatRequest, type ModelsResult, type ProviderFactory, type ProviderRuntime, type SpeechToTextResult } from '../types'
import { ChatCompletionsTransformer, type OpenAIChatChunk } from './chat-completions-transformer'
import { chatChunkParser } from './chunk-parser'
import type { OpenAICompatibleConfig } from './config'
import { endMarkerFetch, type StreamWatch } from './end-marker-fetch'
import { baseChatBody } from './payload-rules'
import { openAICompatibleProviders } from './providers/index'
import { buildResponsesBody } from './responses-payload'
import { ResponsesTransformer, type ResponsesEvent } from './responses-transformer'
import { openAIImagesHook } from '../images/compatible-hooks'
import { logged } from '../../log/logger'
import { isCustomProviderId } from '../../../shared/data/custom-provider'

/** Placeholder the SDK needs for keyless local servers; it is not a secret. */
const NO_KEY = 'no-key-required'

/**
 * Config for an id we do not know: a custom OpenAI-compatible endpoint, everything offered.
 * A provider the user added (`custom-…`) may be a gateway that wants no key: its key is optional.
 */
function genericConfig(id: string): OpenAICompatibleConfig {
  return { id, baseURL: '', embeddings: true, textToSpeech: true, speechToText: true, createImage: openAIImagesHook, ...(isCustomProviderId(id) ? { keyless: true } : {}) }
}

/** The OpenAI-compatible config for a provider id (the generic one for unknown ids). */
export const openAICompatibleConfig = (id: string): OpenAICompatibleConfig => openAICompatibleProviders[id] ?? genericConfig(id)

function validBaseURL(url: string, provider: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('protocol')
  } catch {
    throwRuntimeError('ConnectionCheckFailed', `The base URL of ${provider} is not a valid http(s) URL.`, provider)
  }
  return url.replace(/\/+$/, '')
}

/** A non-streamed completion, replayed as one chunk through the same transformer. */
async function* singleChunk(completion: OpenAI.Chat.Completions.ChatCompletion): AsyncIterable<OpenAIChatChunk> {
  const choice = completion.choices?.[0]
  yield {
    id: completion.id,
    choices: choice
      ? [{ index: 0, delta: choice.message as NonNullable<NonNullable<OpenAIChatChunk['choices']>[number]['delta']>, finish_reason: choice.finish_reason, logprobs: choice.logprobs as NonNullable<OpenAIChatChunk['choices']>[number]['logprobs'] }]
      : [],
    usage: completion.usage ?? undefined
  }
}

/**
 * The generic OpenAI-compatible runtime: one SDK client per call, the provider's config
 * hooks for payload, errors and model lists, and runChatStream for the robustness.
 * Credentials are checked here, before anything touches the network.
 */
export const createOpenAICompatibleRuntime: ProviderFactory = (credentials, context): ProviderRuntime => {
  const id = context.providerId
  const config = openAICompatibleConfig(id)
  // An unknown id without a base URL is named as such first: "no API key" would send the user looking for a key.
  const rawBase = credentials.baseURL?.trim() || config.baseURL
  const builtIn = Boolean(openAICompatibleProviders[id])
  if (!rawBase && !builtIn) throwRuntimeError('InvalidProviderAPIKey', `${id} is not a built-in provider: it needs a base URL (and an API key).`, id)
  const apiKey = config.keyless ? credentials.apiKey?.trim() || undefined : requireApiKey(credentials, id)
  // A built-in provider without a default endpoint (Azure AI): every endpoint is the user's own.
  if (!rawBase) throwRuntimeError('InvalidProviderAPIKey', `${id} needs both an API key and a base URL.`, id)
  const baseURL = validBaseURL(rawBase, id)
  const perCall = config.client?.({ apiKey, credentials }) ?? {}
  const secrets = [apiKey]

  // The config's mapError hook is the provider's spec rule: mapProviderError applies it.
  const rules = { mapError: config.mapError }
  const mapError = (error: unknown, aborted = false): AppError => mapProviderError(error, { provider: id, secrets, baseURL, aborted, rules })
  const fail = (error: unknown, options: CallOptions): never => {
    throw new AppErrorException(mapError(error, options.signal?.aborted ?? false))
  }
  // One client per fetch, retry count and header set: the SDK's constructor and its header
  // building were a measurable part of each short call. The key and address are this runtime's.
  const clients = new Map<string, Promise<OpenAI>>()
  const fetches = new WeakMap<typeof fetch, number>()
  let fetchCount = 0
  const fetchId = (f: typeof fetch): number => {
    let n = fetches.get(f)
    if (n === undefined) fetches.set(f, (n = ++fetchCount))
    return n
  }
  const client = (options: CallOptions, fetchImpl?: typeof fetch, sdkRetries = 0): Promise<OpenAI> => {
    // A per-call fetch (the Responses end marker) is never reused.
    if (fetchImpl) return newClient(options, fetchImpl, sdkRetries)
    const key = `${fetchId(options.fetch ?? globalThis.fetch)}|${sdkRetries}|${options.headers ? JSON.stringify(options.headers) : ''}`
    let made = clients.get(key)
    if (!made) {
      if (clients.size >= 16) clients.clear()
      made = newClient(options, undefined, sdkRetries)
      made.catch(() => clients.delete(key))
      clients.set(key, made)
    }
    return made
  }
  const newClient = async (options: CallOptions, fetchImpl: typeof fetch | undefined, sdkRetries: number): Promise<OpenAI> =>
    new (await loadOpenAI()).default({
      apiKey: apiKey ?? NO_KEY,
      baseURL,
      // Chat: our own retry loop runs before the first byte and makes each wait visible.
      // Other calls have no body stream, so the SDK's own retries are all "before the first byte".
      maxRetries: sdkRetries,
      timeout: 10 * 60 * 1000,
      // The SDK would print raw chunks on parse errors; we report them as StreamChunkError instead.
      logLevel: 'off',
      fetch: fetchImpl ?? options.fetch ?? globalThis.fetch,
      ...(perCall.query ? { defaultQuery: perCall.query } : {}),
      defaultHeaders: { ...config.headers, ...options.headers, ...perCall.headers }
    })

  const runtime: ProviderRuntime = {
    id,
    // The OpenAI API's own options, passed on as sent (an upstream without them answers its own 400).
    chatTakes: { logitBias: true, logprobs: true },
    chat(request: ChatRequest, options: CallOptions = {}): AsyncIterable<StreamEvent> {
      // Returned directly (no wrapping generator): every layer of async iteration costs each event a hop.
      const watch: StreamWatch = { done: false }
      const useResponses = config.useResponsesApi?.(request) ?? false
      const transformer: ChunkTransformer<unknown> & { finished: boolean; pricing?: Pricing; pricingContext?: ChatPricingContext } = useResponses
        ? (new ResponsesTransformer(id) as never)
        : (new ChatCompletionsTransformer({ provider: id, thinkTags: config.thinkTags }) as never)
      transformer.pricingContext = pricingContextOf(request)
      if (useResponses && request.nativeTools?.api === 'openai-responses') (transformer as unknown as ResponsesTransformer).native = true
      const open = async (signal: AbortSignal): Promise<AsyncIterable<unknown>> => {
        // Known providers price usage with the catalogue; unknown ids would load every catalogue file for nothing.
        if (builtIn) transformer.pricing = await getModelProperty(request.model, 'pricing', id).catch(logged(id, 'reading the catalogue pricing'))
        // The Responses API's stream is the SDK's: a wrapped fetch sees its bytes and its [DONE].
        // A chat completions stream is read by our decoder, which reports both itself.
        const sdk = await client(options, useResponses ? endMarkerFetch(options.fetch ?? globalThis.fetch, watch) : undefined)
        if (useResponses) {
          if (request.logprobs || request.logit_bias) {
            // The Responses API has neither in the shape a Chat Completions client asked for: refused before any request.
            const option = request.logprobs ? 'logprobs' : 'logit_bias'
            throw new AppErrorException({ errorType: 'CapabilityNotSupported', status: 400, provider: id, message: `${id} serves ${request.model} through the Responses API, which does not take ${option}. Send the request without it.`, detail: { param: option } })
          }
          const body = buildResponsesBody(request)
          if (body['stream'] === false) {
            const response = (await sdk.responses.create(body as never, { signal })) as unknown as { id: string; output_text?: string; usage?: unknown }
            return (async function* () {
              if (response.output_text) yield { type: 'response.output_text.delta', delta: response.output_text }
              yield { type: 'response.completed', response }
            })()
          }
          return (await sdk.responses.create(body as never, { signal })) as unknown as AsyncIterable<ResponsesEvent>
        }
        let maxOutput: number | undefined
        if (config.wantsMaxOutput) maxOutput = await getModelProperty(request.model, 'maxOutput', id).catch(logged(id, 'reading the catalogue max output'))
        let body = baseChatBody(request)
        if (config.chatPayload) body = await config.chatPayload(body, request, { provider: id, maxOutput })
        if (!body.stream) return singleChunk((await sdk.chat.completions.create({ ...body, stream: false } as never, { signal })) as OpenAI.Chat.Completions.ChatCompletion)
        // The SDK makes the request (headers, auth, its HTTP errors); the body is read by our own
        // decoder, which costs a long reply a fraction of what the SDK's stream does.
        const response = await (sdk.chat.completions.create(body as never, { signal }) as unknown as { asResponse(): Promise<Response> }).asResponse()
        const { APIError } = await loadOpenAI()
        return sseJsonStream(response, { signal, watch, parse: chatChunkParser(), apiError: (error, headers) => new APIError(undefined, error as never, undefined, headers) })
      }
      return runChatStream<unknown>({
        provider: id,
        options,
        open: (signal, activity) => {
          watch.onBytes = activity
          return open(signal)
        },
        transformer,
        mapError,
        sawEndMarker: () => watch.done || transformer.finished || request.stream === false
      })
    },

    async models(options: CallOptions = {}): Promise<ModelsResult> {
      let fetched: FetchedModel[]
      let warning: string | undefined
      try {
        const sdk = await client(options, undefined, options.maxRetries ?? DEFAULT_MAX_RETRIES)
        if (config.listModels) {
          const result = await config.listModels({ provider: id, client: sdk, baseURL, apiKey: apiKey ?? NO_KEY, fetch: options.fetch ?? globalThis.fetch, options })
          if (Array.isArray(result)) fetched = result
          else {
            fetched = result.models.map((m) => ({ ...m, pricing: undefined }) as FetchedModel)
            warning = result.warning
          }
        } else {
          const page = await sdk.models.list({ signal: options.signal })
          fetched = page.data.map((raw) => config.toFetchedModel?.(raw as unknown as Record<string, unknown>) ?? { id: raw.id, created: raw.created })
        }
      } catch (error) {
        return fail(error, options)
      }
      const builtin: CatalogueModel[] = await loadProviderModels(id).catch(() => [])
      // providers.md §5: embedding, tts, whisper, dall-e … ids are not chat models. Entries the
      // provider typed otherwise (Xinference embeddings) stay, with their type.
      const models = processModelList(fetched, { builtin }).filter((m) => m.type !== 'chat' || !isExcludedFromChatList(m.id))
      return warning ? { models, warning } : { models }
    }
  }

  if (config.embeddings) {
    // The OpenAI API (and vLLM, llama.cpp's server) take token ids as `input` too; an upstream that does not says so.
    Object.assign(runtime, { embeddingsTakeTokenIds: true })
    runtime.embeddings = async (request, options = {}) => {
      try {
        const result = await (await client(options, undefined, options.maxRetries ?? DEFAULT_MAX_RETRIES)).embeddings.create(
          { model: request.model, input: request.tokenIds ?? request.input, encoding_format: 'float', ...(request.dimensions ? { dimensions: request.dimensions } : {}) },
          { signal: options.signal }
        )
        const rows = [...result.data].sort((a, b) => a.index - b.index)
        return { embeddings: rows.map((r) => r.embedding as number[]), usage: { promptTokens: result.usage?.prompt_tokens, totalTokens: result.usage?.total_tokens } }
      } catch (error) {
        return fail(error, options)
      }
    }
  }
  if (config.textToSpeech) {
    runtime.textToSpeech = async (request, options = {}) => {
      try {
        const format = request.responseFormat ?? 'mp3'
        const response = await (await client(options, undefined, options.maxRetries ?? DEFAULT_MAX_RETRIES)).audio.speech.create(
          { model: request.model, input: request.input, voice: request.voice as never, response_format: format, ...(request.speed ? { speed: request.speed } : {}) },
          { signal: options.signal }
        )
        const audio = new Uint8Array(await response.arrayBuffer())
        return { audio, mimeType: response.headers.get('content-type') ?? `audio/${format === 'mp3' ? 'mpeg' : format}` }
      } catch (error) {
        return fail(error, options)
      }
    }
  }
  if (config.speechToText) {
    runtime.speechToText = async (request, options = {}) => {
      try {
        const { toFile } = await loadOpenAI()
        const file = await toFile(request.audio, request.fileName, request.mimeType ? { type: request.mimeType } : undefined)
        const result = await (await client(options, undefined, options.maxRetries ?? DEFAULT_MAX_RETRIES)).audio.transcriptions.create(
          { file, model: request.model, ...(request.language ? { language: request.language } : {}), ...(request.prompt ? { prompt: request.prompt } : {}) },
          { signal: options.signal }
        )
        if (typeof result === 'string') return { text: result }
        const usage = transcriptionUsage((result as { usage?: unknown }).usage)
        return { text: result.text, ...(usage ? { usage } : {}) }
      } catch (error) {
        return fail(error, options)
      }
    }
  }
  if (config.createImage) {
    const createImage = config.createImage
    runtime.createImage = async (request, options = {}) => {
      try {
        return await createImage({ provider: id, baseURL, apiKey: apiKey ?? NO_KEY, client: await client(options), fetch: options.fetch ?? globalThis.fetch }, request, options)
      } catch (error) {
        // The image protocols already throw catalogue errors; only SDK errors need mapping.
        if (error instanceof AppErrorException) throw error
        return fail(error, options)
      }
    }
  }
  return runtime
}

/** OpenAI's transcription usage: `{ type: 'duration', seconds }` or `{ type: 'tokens', input_tokens, … }`; anything else is none. */
function transcriptionUsage(raw: unknown): SpeechToTextResult['usage'] {
  if (!raw || typeof raw !== 'object') return undefined
  const u = raw as { type?: unknown; seconds?: unknown; input_tokens?: unknown; output_tokens?: unknown; input_token_details?: { audio_tokens?: unknown; text_tokens?: unknown } }
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined)
  const usage = {
    ...(num(u.seconds) !== undefined ? { seconds: num(u.seconds)! } : {}),
    ...(num(u.input_tokens) !== undefined ? { inputTokens: num(u.input_tokens)! } : {}),
    ...(num(u.output_tokens) !== undefined ? { outputTokens: num(u.output_tokens)! } : {}),
    ...(num(u.input_token_details?.audio_tokens) !== undefined ? { audioTokens: num(u.input_token_details?.audio_tokens)! } : {}),
    ...(num(u.input_token_details?.text_tokens) !== undefined ? { textTokens: num(u.input_token_details?.text_tokens)! } : {})
  }
  return Object.keys(usage).length ? usage : undefined
}
