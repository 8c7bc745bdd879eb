import type { MessageRole } from './message'

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
