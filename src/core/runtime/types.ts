/**
 * The provider runtime interface (DESIGN §3, providers.md §3). Every provider, native or
 * OpenAI-compatible, is one `ProviderRuntime`; every method is optional.
 *
 * How a native adapter plugs in:
 *   1. Write `src/core/runtime/<provider>/` with a factory
 *      `export const createXRuntime: ProviderFactory = (credentials, context) => ({ id: context.providerId, chat, models, … })`.
 *   2. Validate credentials before any network call (use `requireApiKey` / `requireFields`
 *      from ./credentials) and throw the AppErrorException they build.
 *   3. `chat` returns an AsyncIterable<StreamEvent>; never throw from it. Wrap the SDK
 *      iterator with `runChatStream` (./stream/run-chat-stream) which gives you the idle
 *      watchdog, cancellation, first-chunk errors, interruption, stop/usage ordering and
 *      speed for free; you write only a `ChunkTransformer` (SDK chunk → events). Reusable
 *      pieces: ThinkTagSplitter, ToolCallMerger, SpeedTracker, IdleWatchdog, mapProviderError.
 *   4. Give it a spec (providers/<id>/<id>-spec.ts, nativeSpec) and list it in ./provider-specs.ts.
 * Unknown provider ids fall back to the generic OpenAI-compatible adapter (./registry).
 */
import type { Pricing } from '../../shared/pricing/types'
import type { NativeStreamEvent, StreamEvent, ToolCall } from '../../shared/stream/events'
import type { ImagePollingOptions } from './images/polling'

export type { StreamEvent, ToolCall }

// ---------------------------------------------------------------- chat request (providers.md §3)

/** A prompt-caching breakpoint as Anthropic's API takes it, kept where the client placed it. */
export interface CacheControl {
  type: 'ephemeral'
  ttl?: '5m' | '1h'
}

export type ChatContentPart =
  | { type: 'text'; text: string; cache_control?: CacheControl }
  | { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' } }

export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool' | 'function'
  content: string | ChatContentPart[] | null
  name?: string
  /** Assistant turns that called tools. */
  tool_calls?: ToolCall[]
  /** Tool turns: the call this result answers. */
  tool_call_id?: string
  /** Reasoning text of an earlier assistant turn (some providers want it sent back). */
  reasoning_content?: string
  /** Signed thinking of an earlier assistant turn: Anthropic needs it back for multi-turn thinking. */
  reasoning?: { content: string; signature?: string; redacted?: boolean }
  /** A caching breakpoint on the block this turn ends with (a tool result), where the client put one. */
  cache_control?: CacheControl
  /** Assistant turns of the local API that hold server-tool blocks: those blocks, for the runtime that speaks their API. */
  native?: NativeContent
}

export interface ChatTool {
  type: 'function'
  function: { name: string; description?: string; parameters?: Record<string, unknown> }
  /** A caching breakpoint the client put on this tool. */
  cache_control?: CacheControl
}

/**
 * A wire format whose own tools and blocks a runtime can take unchanged: Anthropic's Messages
 * API (server tools such as `web_search_20250305`, and the `server_tool_use` / `*_tool_result`
 * blocks they answer with), OpenAI's Responses API (built-in tools such as `web_search`, and the
 * `web_search_call` … output items they answer with).
 */
export type NativeApi = NativeStreamEvent['api']

/**
 * Tools the provider runs itself, kept exactly as a client of the local API sent them. Opaque to
 * the app: only a runtime that speaks `api` reads them; every other runtime ignores them (the
 * local API leaves them out with a warning before it calls one).
 */
export interface NativeTools {
  api: NativeApi
  tools: ReadonlyArray<Readonly<Record<string, unknown>>>
}

/**
 * An assistant turn's blocks exactly as the client sent them back (server tool calls and their
 * results among text and tool calls, in order): the runtime that speaks `api` sends these instead
 * of rebuilding the turn; every other runtime reads the turn's content and tool_calls.
 */
export interface NativeContent {
  api: NativeApi
  blocks: ReadonlyArray<Readonly<Record<string, unknown>>>
}

export type ReasoningEffort = 'minimal' | 'low' | 'medium' | 'high'

export interface ChatRequest {
  model: string
  messages: ChatMessage[]
  temperature?: number
  top_p?: number
  max_tokens?: number
  frequency_penalty?: number
  presence_penalty?: number
  tools?: ChatTool[]
  /** The local API's provider-run tools (Anthropic's server tools), for the runtime that speaks their API; the app's own chats send none. */
  nativeTools?: NativeTools
  /** Extended thinking: `enabled` with an optional token budget, `adaptive` (the model decides how much), or `disabled`. */
  thinking?: { type: 'enabled' | 'adaptive' | 'disabled'; budget_tokens?: number }
  /** Sequences that end the reply (OpenAI's stop, Anthropic's stop_sequences), where the provider takes them. */
  stop?: string[]
  enabledContextCaching?: boolean
  enabledSearch?: boolean
  /** With enabledSearch: how many results a provider that takes a count should fetch (xAI: 1..30, default 15). */
  searchMaxResults?: number
  /** With enabledSearch: the most searches Anthropic's web-search tool may run (max_uses), from settings. */
  searchMaxUses?: number
  reasoning_effort?: ReasoningEffort
  verbosity?: 'low' | 'medium' | 'high'
  /** `responses` forces the OpenAI Responses API where a provider offers it. */
  apiMode?: 'chat_completions' | 'responses'
  /** Streaming is the default; `false` still yields events (from one non-streamed reply). */
  stream?: boolean
  /** End-user id forwarded to providers that accept one. */
  user?: string
  /** Local servers (Ollama num_ctx): the user's per-model context length; wins over the computed one. */
  contextLength?: number
  /** Force or forbid tool use (OpenAI's tool_choice), where the provider takes it. */
  tool_choice?: 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } }
  /** Structured output: JSON mode or a JSON schema (OpenAI's response_format), where the provider takes it. */
  response_format?: ResponseFormat
  /** OpenAI's logit_bias: token id (as a string) → −100..100 added to its logit, −100 bans it. Only to a runtime whose `chatTakes.logitBias` is set. */
  logit_bias?: Record<string, number>
  /** Return the output tokens' log-probabilities (`logprobs` events). Only to a runtime whose `chatTakes.logprobs` is set. */
  logprobs?: boolean
  /** With logprobs: how many of the most likely alternatives each token comes with (0..20). */
  top_logprobs?: number
}

export type ResponseFormat =
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name: string; schema?: Record<string, unknown>; strict?: boolean | null; description?: string } }

// ---------------------------------------------------------------- credentials and options

/** Everything a provider may need to authenticate. Keys live only here, never in events or errors. */
export interface ProviderCredentials {
  apiKey?: string
  baseURL?: string
  /** Azure: api-version query. */
  apiVersion?: string
  /** Bedrock. */
  accessKeyId?: string
  secretAccessKey?: string
  sessionToken?: string
  region?: string
  /** Cloudflare. */
  accountId?: string
  /** Vertex AI. */
  project?: string
  location?: string
  serviceAccountJson?: string
}

export interface ProviderContext {
  /** The provider id as the user configured it (registry key, or an unknown/custom id). */
  providerId: string
}

export interface CallOptions {
  /** Cancels the call; a cancelled chat ends with error ProviderBizError 'Request was cancelled' and stop 'cancelled'. */
  signal?: AbortSignal
  /** Longest silence allowed between stream chunks (ms). Default 60 000. 0 disables. */
  idleTimeoutMs?: number
  /** Replaces global fetch (tests, proxies). */
  fetch?: typeof fetch
  /** Retries before the first byte (429, 5xx, connection refused). Default 2. Never after the first byte. */
  maxRetries?: number
  /** Longest Retry-After we honour (ms). Default 30 000; a longer demand fails instead. */
  retryAfterCapMs?: number
  /** Extra request headers (never logged). */
  headers?: Record<string, string>
  /** Image tasks: polling cadence (tests shorten it) and progress reports (./images/polling). */
  imagePolling?: ImagePollingOptions
}

// ---------------------------------------------------------------- other calls

/** One row of a provider's model list (providers.md §3, "Model list entry"). */
export interface RemoteModelCard {
  id: string
  displayName?: string
  description?: string
  enabled?: boolean
  type?: 'chat' | 'image' | 'embedding' | 'tts' | 'stt' | string
  contextWindowTokens?: number
  maxOutput?: number
  functionCall?: boolean
  reasoning?: boolean
  vision?: boolean
  /** The catalogue's pricing, or per-million {input, output} as some lists give it. */
  pricing?: Pricing | { input?: number; output?: number }
  releasedAt?: string
}

export interface ModelsResult {
  models: RemoteModelCard[]
  /** A non-fatal problem the user should see (ModelScope: check key and account binding). */
  warning?: string
}

export interface EmbeddingsRequest {
  model: string
  input: string | string[]
  /**
   * Token ids in place of text, one list per input (OpenAI's and llama.cpp's `input` given as
   * integers); `input` is then empty. Only a runtime with `embeddingsTakeTokenIds` is given them.
   */
  tokenIds?: number[][]
  dimensions?: number
}

export interface EmbeddingsResult {
  embeddings: number[][]
  usage?: { promptTokens?: number; totalTokens?: number }
}

export interface TextToSpeechRequest {
  model: string
  input: string
  voice: string
  speed?: number
  responseFormat?: 'mp3' | 'opus' | 'aac' | 'flac' | 'wav' | 'pcm'
}

export interface TextToSpeechResult {
  audio: Uint8Array
  mimeType: string
}

export interface SpeechToTextRequest {
  model: string
  audio: Uint8Array
  fileName: string
  mimeType?: string
  language?: string
  prompt?: string
}

export interface SpeechToTextResult {
  text: string
  /** What the provider says it billed: seconds of audio (whisper-1) or tokens (gpt-4o-transcribe). */
  usage?: { seconds?: number; inputTokens?: number; audioTokens?: number; textTokens?: number; outputTokens?: number }
}

export interface CreateImageRequest {
  model: string
  params: {
    prompt: string
    size?: string
    seed?: number | null
    aspectRatio?: string
    cfg?: number
    steps?: number
    imageUrl?: string | null
    imageUrls?: string[]
    width?: number
    height?: number
    quality?: string
    /** DashScope: let the service rewrite the prompt; add its watermark. */
    promptExtend?: boolean
    watermark?: boolean
    /** Output resolution tier where a model takes one instead of a size (Kling: 1k, 2k). */
    resolution?: string
  }
}

export interface CreateImageResult {
  imageUrl: string
  width?: number
  height?: number
  /** The seed the provider used, when it says (so a random seed can be reused). */
  seed?: number
}

export interface PullModelRequest {
  model: string
  insecure?: boolean
}

/** One progress item of a model pull (providers.md §4). */
export interface PullProgress {
  status: string
  model: string
  completed?: number
  total?: number
  digest?: string
  /** With status 'error' or 'cancelled'. */
  error?: { errorType: string; message: string; status: number }
}

// ---------------------------------------------------------------- the runtime

export interface ProviderRuntime {
  readonly id: string
  chat?(request: ChatRequest, options?: CallOptions): AsyncIterable<StreamEvent>
  models?(options?: CallOptions): Promise<ModelsResult>
  embeddings?(request: EmbeddingsRequest, options?: CallOptions): Promise<EmbeddingsResult>
  /** `embeddings` takes `tokenIds` (the model's own token ids) as well as text. */
  readonly embeddingsTakeTokenIds?: boolean
  /**
   * The chat options only some backends honour (token ids and probabilities are the model's own).
   * A request with one the runtime does not take is refused by name before it starts (model-caller).
   */
  readonly chatTakes?: { readonly logitBias?: boolean; readonly logprobs?: boolean }
  textToSpeech?(request: TextToSpeechRequest, options?: CallOptions): Promise<TextToSpeechResult>
  speechToText?(request: SpeechToTextRequest, options?: CallOptions): Promise<SpeechToTextResult>
  createImage?(request: CreateImageRequest, options?: CallOptions): Promise<CreateImageResult>
  pullModel?(request: PullModelRequest, options?: CallOptions): AsyncIterable<PullProgress>
}

/**
 * Builds a runtime. Must validate credentials synchronously (throwing AppErrorException)
 * or lazily at the first call, but always before any network request.
 */
export type ProviderFactory = (credentials: ProviderCredentials, context: ProviderContext) => ProviderRuntime

export const DEFAULT_IDLE_TIMEOUT_MS = 60_000
export const DEFAULT_MAX_RETRIES = 2
export const DEFAULT_RETRY_AFTER_CAP_MS = 30_000
