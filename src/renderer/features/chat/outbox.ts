import type { MessageToolChoice } from '../../../shared/tools/types'
import { create } from 'zustand'
import type { ModelParameters } from '../../../shared/data/agent'

/**
 * Messages sent while the connection to the core was lost: kept here, shown under
 * the conversation as "will send when reconnected" (cancellable), saved in localStorage so a
 * reload keeps them, and sent by the chat store when the connection is back.
 */
export interface QueuedMessage {
  id: string
  /** Absent: a new chat (the agent's). */
  conversationId?: string
  agentId?: string
  /** The message the reply answers, as it was when the user pressed Send. */
  parentId?: string
  text: string
  images: { dataUrl: string }[]
  files: string[]
  model?: { providerId: string; modelId: string }
  /** Controls chosen before a new chat existed (sent with its first message). */
  parameters?: ModelParameters
  /** Knowledge bases chosen before a new chat existed (sent with its first message). */
  knowledgeBaseIds?: string[]
  /** The composer's tools choice for this message only. */
  tools?: MessageToolChoice
  /** `sending`: handed to the bridge, not yet acknowledged by the core. */
  state: 'queued' | 'sending'
  at: number
}

const KEY = 'switchboard.outbox'

function restore(): QueuedMessage[] {
  try {
    const parsed = JSON.parse(localStorage.getItem(KEY) ?? '[]') as unknown
    if (!Array.isArray(parsed)) return []
    // A send that was under way when the page closed was not acknowledged: it waits again.
    return parsed.filter((m): m is QueuedMessage => Boolean(m) && typeof (m as QueuedMessage).text === 'string').map((m) => ({ ...m, state: 'queued' as const }))
  } catch {
    return []
  }
}

export const useOutbox = create<{ items: QueuedMessage[] }>()(() => ({ items: restore() }))

useOutbox.subscribe((state) => {
  try {
    localStorage.setItem(KEY, JSON.stringify(state.items))
  } catch {
    // Too large for the storage (images): keep the images in memory, the text on disk.
    try {
      localStorage.setItem(KEY, JSON.stringify(state.items.map((m) => ({ ...m, images: [] }))))
    } catch {
      // Storage denied: the queue lives for this page only.
    }
  }
})

export const outbox = {
  add(message: Omit<QueuedMessage, 'id' | 'state' | 'at'>): QueuedMessage {
    const item: QueuedMessage = { ...message, id: crypto.randomUUID(), state: 'queued', at: Date.now() }
    useOutbox.setState((s) => ({ items: [...s.items, item] }))
    return item
  },
  remove(id: string): QueuedMessage | undefined {
    const item = useOutbox.getState().items.find((m) => m.id === id)
    useOutbox.setState((s) => ({ items: s.items.filter((m) => m.id !== id) }))
    return item
  },
  mark(id: string, state: QueuedMessage['state']): void {
    useOutbox.setState((s) => ({ items: s.items.map((m) => (m.id === id ? { ...m, state } : m)) }))
  }
}
