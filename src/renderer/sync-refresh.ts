import { bridge } from './stores/app-store'
import { chatActions, useChat } from './features/chat/chat-store'
import { providerActions } from './features/providers/providers-store'
import { mergedNewData } from './features/sync/sync-status-text'
import { useSync } from './features/sync/sync-store'

let pending: ReturnType<typeof setTimeout> | undefined

/** Read again what sync may have changed: the conversation list, the open conversation, providers. */
async function refresh() {
  const sidebar = await bridge().call('chat.sidebar', {})
  if (sidebar.ok) useChat.setState({ agents: sidebar.value.agents, conversations: sidebar.value.conversations, defaultAgentId: sidebar.value.defaultAgentId })
  const current = useChat.getState().currentId
  if (current) await chatActions.open(current)
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
