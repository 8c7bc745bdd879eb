import { useMemo } from 'react'
import type { Message } from '../../../shared/data/message'
import { messageSetKey, visiblePath } from './branches'
import { conversationActions } from './chat-conversations'
import { messageActions } from './chat-messages'
import { replyActions } from './chat-replies'
import { sendActions } from './chat-send'

/**
 * The chat store: its state (chat-state.ts) and its actions in slices — conversations
 * (chat-conversations.ts), sending and the outbox (chat-send.ts), reply streams and titles
 * (chat-replies.ts), messages (chat-messages.ts). Pages import from here.
 */
export { COMMIT_INTERVAL_MS, entriesFor, useChat } from './chat-state'
export { followStream } from './chat-replies'

export const chatActions = { ...conversationActions, ...sendActions, ...replyActions, ...messageActions }

/**
 * visiblePath for React: the path's positions are recomputed only when the message set or the
 * branch choice changes; while a reply streams, the current objects are picked by position.
 * (Rebuilding the path on every streaming commit was most of the garbage the GC collected.)
 */
export function useVisiblePath<M extends Message>(all: readonly M[], branch: Record<string, string>): M[] {
  const key = messageSetKey(all)
  const positions = useMemo(() => {
    const at = new Map(all.map((m, i) => [m.id, i]))
    return visiblePath(all, branch).map((m) => at.get(m.id)!)
    // eslint-disable-next-line react-hooks/exhaustive-deps -- keyed by the message set, not each streamed commit
  }, [key, branch])
  return useMemo(() => positions.map((i) => all[i]!), [positions, all])
}
