import type { UsageRecord } from '../stream/usage'
import type { CostBreakdown } from './cost'

/** Trace and usage categories of product.md §8. */
export const USAGE_SCENES = [
  /** A call `switchboard` made that is not a chat (a chat is a Conversation there too): `embed`. */
  'Command Line',
  'Connectivity Checker',
  'Conversation',
  'Emoji Picker',
  'Fetch Plugin API',
  /** An image made on the Images page (priced per image; not a chat model call). */
  'Image Generation',
  'Knowledge Base Evaluation',
  /** Embedding a knowledge base's files (priced per token like any embedding call). */
  'Knowledge Base Indexing',
  /** A knowledge-base search: the query's embedding and a rerank. */
  'Knowledge Base Search',
  'Language Detect',
  'Local API',
  /** Read aloud (text to speech) and dictation (speech to text). */
  'Read Aloud',
  'Dictation',
  'Search Intent Recognition',
  'Summary Agent Description',
  'Summary Agent Tags',
  'Summary Agent Title',
  'Summary History Messages',
  'Summary Topic Title',
  'Translator'
] as const
/**
 * What a call asked the provider for: the endpoint, and so how it is priced (tokens, characters,
 * seconds, images). The scene says what the call was for (a title, a connection test, a judge).
 */
export const USAGE_KINDS = ['chat', 'embedding', 'rerank', 'speech', 'transcription', 'image'] as const
export const USAGE_OPERATIONS = ['Copy Message', 'Delete And Regenerate Message', 'Modify Message', 'Regenerate Message'] as const
export const USAGE_MODES = ['Chat Competition', 'System Chain', 'Tool Calling', 'Tools Calling'] as const
export const USAGE_LOCATIONS = ['Agent Settings'] as const

export type UsageScene = (typeof USAGE_SCENES)[number]
export type UsageKind = (typeof USAGE_KINDS)[number]
export type UsageOperation = (typeof USAGE_OPERATIONS)[number]
export type UsageMode = (typeof USAGE_MODES)[number]
export type UsageLocation = (typeof USAGE_LOCATIONS)[number]

export interface UsageLogEntry {
  id: string
  at: number
  /** Rows written before kinds were recorded are chat. */
  kind: UsageKind
  scene: UsageScene
  operation?: UsageOperation
  mode?: UsageMode
  location?: UsageLocation
  providerId: string
  modelId: string
  conversationId?: string
  messageId?: string
  usage?: UsageRecord
  cost?: CostBreakdown
  durationMs?: number
  /** The local API key that made the call. */
  apiKeyId?: string
}

export type UsageLogInput = Omit<UsageLogEntry, 'id' | 'at' | 'kind'> & { at?: number; kind?: UsageKind }

/** Totals of the usage log, grouped by one field. */
export interface UsageSummaryRow {
  key: string
  calls: number
  totalTokens: number
  /** In `currency` (the model's pricing currency; USD when absent). */
  cost: number
  /** The same cost in USD (CNY at the pricing module's fixed rate, DEFAULT_USD_TO_CNY). */
  costUsd: number
  currency?: string
  /** Input tokens of the calls, and how many of them were read from the provider's prompt cache. */
  inputTokens: number
  cachedInputTokens: number
}

/** The share of input tokens read from the prompt cache (0..1); undefined without input. */
export const cacheHitRate = (row: { inputTokens: number; cachedInputTokens: number }): number | undefined => (row.inputTokens > 0 ? row.cachedInputTokens / row.inputTokens : undefined)
