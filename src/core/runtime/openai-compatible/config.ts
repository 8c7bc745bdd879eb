import type OpenAI from 'openai'
import type { FetchedModel } from '../../../shared/catalogue/model-list'
import type { ErrorFacts } from '../errors/map-provider-error'
import type { CallOptions, ChatRequest, ModelsResult, ProviderCredentials } from '../types'
import type { ChatBody } from './payload-rules'
import type { CompatibleImageHook } from '../images/compatible-hooks'
import type { ErrorTypeName } from '../../../shared/errors/catalogue'

export interface PayloadContext {
  provider: string
  /** The model's max output from the catalogue, when known. */
  maxOutput?: number
}

export interface ListContext {
  provider: string
  client: OpenAI
  baseURL: string
  apiKey: string
  fetch: typeof fetch
  options: CallOptions
}

/**
 * An OpenAI-compatible provider is data plus a few hooks (DESIGN §3), not a class.
 * Only `id` and `baseURL` are required; everything else defaults to plain OpenAI behaviour.
 */
export interface OpenAICompatibleConfig {
  id: string
  /** Default endpoint; the user's base URL wins. Equals the catalogue card's defaultBaseURL when it has one; '' when the user must give one. */
  baseURL: string
  /** Local servers need no key (LM Studio, vLLM, Xinference). */
  keyless?: boolean
  /** Shapes the chat-completions body: clamping, search, thinking (providers.md §5). */
  chatPayload?(body: ChatBody, request: ChatRequest, ctx: PayloadContext): ChatBody | Promise<ChatBody>
  /** Whether this request goes to the Responses API (store false). */
  useResponsesApi?(request: ChatRequest): boolean
  /**
   * Whether a model's requests go by the Responses API, whose built-in tools (web_search,
   * file_search …) the runtime then passes on (a request's `nativeTools` of `openai-responses`).
   * A model it serves by Chat Completions has none.
   */
  builtInTools?(model: string): boolean
  /** Provider-specific error rules, tried before the generic mapping. */
  mapError?(facts: ErrorFacts): { errorType: ErrorTypeName; message?: string } | undefined
  /** Replaces the default GET /models listing. */
  listModels?(ctx: ListContext): Promise<ModelsResult | FetchedModel[]>
  /** Maps one raw /models entry (extra metadata some servers send). */
  toFetchedModel?(raw: Record<string, unknown>): FetchedModel
  /** Look up the model's max output in the catalogue before shaping the payload. */
  wantsMaxOutput?: boolean
  /** `<think>` tags in text are reasoning (default true). */
  thinkTags?: boolean
  /** Which optional calls the provider offers (all default true for openai; false elsewhere unless set). */
  embeddings?: boolean
  textToSpeech?: boolean
  speechToText?: boolean
  /** Image generation over this provider's image endpoint (../images/compatible-hooks). */
  createImage?: CompatibleImageHook
  /** Extra headers every call sends. */
  headers?: Record<string, string>
  /** Query parameters and headers every call sends that depend on the credentials (Azure AI's api-version and api-key). */
  client?(ctx: { apiKey?: string; credentials: ProviderCredentials }): { query?: Record<string, string>; headers?: Record<string, string> }
}
