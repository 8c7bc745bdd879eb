import type { AppError } from '../errors/app-error'
import type { ReplySource } from '../knowledge/types'
import type { UsageRecord } from './usage'

/** A tool call as streamed; deltas with the same index are merged (providers.md §3). */
export interface ToolCall {
  id: string
  type: 'function' | string
  function: { name: string; arguments: string }
  /** Position in the assistant message; used to merge streamed fragments. */
  index?: number
  /** Gemini's opaque thought signature: must be sent back with the call in the next turn. */
  thoughtSignature?: string
}

export interface GroundingCitation {
  title?: string
  url: string
  favicon?: string
}

/**
 * What a reply draws on, one concept for both kinds: web citations (a provider's search, the
 * app's web search tool) and the numbered knowledge-base chunks it was given. Streamed as
 * `grounding` events (each sets the keys it carries) and stored with the message.
 */
export interface Grounding {
  citations?: GroundingCitation[]
  searchQueries?: string[]
  /** The knowledge-base chunks the model was given, numbered as it cites them ([1], [2] …). */
  knowledge?: ReplySource[]
}

export interface Speed {
  /** Output tokens per second after the first token. */
  tps?: number
  /** Time to first token in milliseconds. */
  ttft?: number
}

/**
 * A retry before the first byte (shown on the message as "Rate limited, retrying in
 * 4 s… (2/3)"). `attempt` counts from 1 up to `maxAttempts`; `kind` says why, for the wording.
 */
export interface RetryNotice {
  attempt: number
  waitMs: number
  /** English, for logs and the CLI. */
  reason: string
  maxAttempts?: number
  kind?: 'rate_limit' | 'server' | 'connection'
  /** The HTTP status that caused it. */
  status?: number
}

/** See the `native` stream event: the API it is in, and the event as that API streamed it. */
export interface NativeStreamEvent {
  api: 'anthropic-messages' | 'openai-responses'
  event: Readonly<{ type: string; [field: string]: unknown }>
}

/** One output token's log-probability, with the most likely alternatives where asked for (OpenAI's `logprobs.content[]`). */
export interface TokenLogprob {
  token: string
  logprob: number
  /** The token's UTF-8 bytes (a token may be part of a character); null where the provider gives none. */
  bytes: number[] | null
  top_logprobs: Array<{ token: string; logprob: number; bytes: number[] | null }>
}

export type StopReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'cancelled' | 'interrupted' | 'error' | string

/** The one event type every provider stream is turned into (DESIGN §3). */
export type StreamEvent =
  | { type: 'text'; data: string }
  /**
   * `signature` must be sent back with the reasoning for multi-turn thinking (Anthropic);
   * `redacted` marks encrypted reasoning whose opaque payload is the signature.
   */
  | { type: 'reasoning'; data: string; signature?: string; redacted?: boolean }
  | { type: 'tool_calls'; data: ToolCall[] }
  | { type: 'usage'; data: UsageRecord }
  | { type: 'grounding'; data: Grounding }
  | { type: 'stop'; data: StopReason }
  | { type: 'error'; data: AppError }
  | { type: 'speed'; data: Speed }
  | { type: 'base64_image'; data: { image: string; mimeType: string; id?: string } }
  /** A retry is scheduled (429 with Retry-After): visible to the caller, not silent. */
  | { type: 'retry'; data: RetryNotice }
  /**
   * A provider's own stream event, unchanged, beside the events above (never instead of them):
   * only for a local-API request that carried the provider's own tools, so that the local API
   * can give its client the blocks the app has no event for (Anthropic's server_tool_use and
   * web_search_tool_result). Nothing else in the app reads it.
   */
  | { type: 'native'; data: NativeStreamEvent }
  /**
   * The log-probabilities of the output tokens of the text event that follows it (only when the
   * request asked for `logprobs`, from a provider that returns them): for the local API's
   * client. The chat, its persistence and the renderer ignore it.
   */
  | { type: 'logprobs'; data: TokenLogprob[] }

export type StreamEventType = StreamEvent['type']
