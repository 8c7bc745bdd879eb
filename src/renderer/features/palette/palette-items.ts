import type { Agent } from '../../../shared/data/agent'
import type { Conversation } from '../../../shared/data/conversation'
import type { SearchHit } from '../../../shared/data/search'

export type PaletteKind = 'action' | 'page' | 'agent' | 'conversation' | 'message'

export interface PaletteItem {
  id: string
  kind: PaletteKind
  label: string
  /** A second line: the conversation of a message, the section of a page… */
  detail?: string
  run(): void
}

/** Case- and accent-insensitive, every word of the query somewhere in the text (in any order). */
export function matches(text: string, query: string): boolean {
  const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase()
  const hay = fold(text)
  return fold(query)
    .split(/\s+/)
    .filter(Boolean)
    .every((w) => hay.includes(w))
}

export const LIMITS: Record<PaletteKind, number> = { action: 6, page: 12, agent: 5, conversation: 8, message: 8 }

/**
 * The palette's list for a query, in the order it shows: actions, pages, agents, conversations,
 * then the messages the search found. An empty query lists actions, pages and recent conversations.
 */
export function paletteItems(input: {
  query: string
  actions: PaletteItem[]
  pages: PaletteItem[]
  agents: Agent[]
  conversations: Conversation[]
  hits: SearchHit[] | undefined
  openAgent(id: string): void
  openConversation(id: string): void
  openMessage(hit: SearchHit): void
  untitled: string
}): PaletteItem[] {
  const q = input.query.trim()
  const take = <T>(list: T[], kind: PaletteKind) => list.slice(0, LIMITS[kind])
  const filter = (items: PaletteItem[]) => (q ? items.filter((i) => matches(`${i.label} ${i.detail ?? ''}`, q)) : items)
  const agents = input.agents.map<PaletteItem>((a) => ({ id: `agent:${a.id}`, kind: 'agent', label: a.name, run: () => input.openAgent(a.id) }))
  const conversations = [...input.conversations]
    .sort((a, b) => b.updatedAt - a.updatedAt)
    .map<PaletteItem>((c) => ({ id: `conversation:${c.id}`, kind: 'conversation', label: c.title || input.untitled, run: () => input.openConversation(c.id) }))
  const messages = q
    ? (input.hits ?? []).map<PaletteItem>((h) => ({
        id: `message:${h.messageId}`,
        kind: 'message',
        label: h.snippet.map((r) => r.text).join(''),
        detail: h.conversationTitle || input.untitled,
        run: () => input.openMessage(h)
      }))
    : []
  return [
    ...take(filter(input.actions), 'action'),
    ...take(filter(input.pages), 'page'),
    ...(q ? take(filter(agents), 'agent') : []),
    ...take(filter(conversations), 'conversation'),
    ...take(messages, 'message')
  ]
}
