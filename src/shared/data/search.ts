import type { MessageRole } from './message'

/** Narrowing beside the scope: the model that wrote a message and a time window (ms since epoch, `to` exclusive). */
export interface SearchFilters {
  modelId?: string
  from?: number
  to?: number
}

export type SearchScope = { kind: 'all' } | { kind: 'agent'; agentId: string } | { kind: 'conversation'; conversationId: string }

/** A snippet cut into runs; `match` runs are the highlighted words. Plain data, so no HTML to sanitise. */
export type SnippetRun = { text: string; match: boolean }

export interface SearchHit {
  messageId: string
  conversationId: string
  agentId: string
  conversationTitle: string
  role: MessageRole
  createdAt: number
  snippet: SnippetRun[]
}
