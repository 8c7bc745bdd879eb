import type { Message } from '../shared/data/message'
import { bridge } from './stores/app-store'
import { useChat } from './features/chat/chat-store'
import { providerActions } from './features/providers/providers-store'
import { mergedNewData } from './features/sync/sync-status-text'
import { useSync } from './features/sync/sync-store'

let pending: ReturnType<typeof setTimeout> | undefined

/**
 * Read again what sync may have changed (after a round that merged, or an edit brought back in
 * Settings → Sync): the conversation list, the open conversation's messages, providers. Nothing
 * the user is doing is touched: the chosen agent, a send error, a conversation waiting out its
 * "undo delete", a reply still streaming (its live copy is newer than the row).
 */
export async function refresh() {
  const sidebar = await bridge().call('chat.sidebar', {})
  if (sidebar.ok) {
    const hidden = useChat.getState().pendingDelete?.conversation.id
    useChat.setState({ agents: sidebar.value.agents, conversations: sidebar.value.conversations.filter((c) => c.id !== hidden), defaultAgentId: sidebar.value.defaultAgentId })
  }
  const current = useChat.getState().currentId
  if (current) {
    const result = await bridge().call('chat.messages', { conversationId: current })
    if (result.ok)
      useChat.setState((s) => {
        const mine = new Map((s.messages[current] ?? []).map((m) => [m.id, m]))
        const newer = (m: Message) => {
          const local = mine.get(m.id)
          return local && (s.streaming[m.id] || local.updatedAt > m.updatedAt) ? local : m
        }
        return { messages: { ...s.messages, [current]: result.value.map(newer) } }
      })
  }
  await providerActions.load()
}

/**
 * Changes merged from other devices land in the core's database; the pages that show stored data
 * read it again after such a round (at most once a second, however often the rounds come).
 * Returns the unsubscribe function.
 */
export function refreshAfterSync(): () => void {
  const stop = useSync.subscribe((state, prev) => {
    if (!mergedNewData(prev.status, state.status) || pending) return
    pending = setTimeout(() => {
      pending = undefined
      void refresh()
    }, 1000)
  })
  return () => {
    stop()
    clearTimeout(pending)
    pending = undefined
  }
}
