import { messageText, type Message } from '../../../shared/data/message'
import { bridge } from '../../stores/app-store'
import { useChat } from './chat-state'
import { conversationActions } from './chat-conversations'
import { upsert } from './chat-replies'

/** The chat store's messages: editing, deleting with undo, branches, copying. */
export const messageActions = {
  async updateMessage(message: Message, text: string) {
    const content = [{ type: 'text' as const, text }, ...message.content.filter((p) => p.type !== 'text')]
    const result = await bridge().call('data.messages.update', { id: message.id, patch: { content } })
    if (result.ok) upsert(message.conversationId, result.value)
  },

  /**
   * Hides the message now (its replies move up to its parent, as the core will do) and deletes
   * it after a few seconds unless undone — the same Undo as a conversation's. `also`: messages
   * deleted with it (a reply's continuations, shown as one reply with it).
   */
  deleteMessage(message: Message, also: readonly Message[] = []) {
    if (useChat.getState().pendingMessageDelete) messageActions.commitMessageDelete()
    const list = useChat.getState().messages[message.conversationId] ?? []
    const gone = new Set([message.id, ...also.map((m) => m.id)])
    const shown = list.filter((m) => gone.has(m.id))
    if (!shown.some((m) => m.id === message.id)) return
    // What hung under a deleted message, and under which: put back as it was on Undo.
    const children = list.filter((m) => m.parentId && gone.has(m.parentId) && !gone.has(m.id)).map((m) => [m.id, m.parentId!] as [string, string])
    const timer = setTimeout(() => messageActions.commitMessageDelete(), 6000)
    useChat.setState((s) => ({
      pendingMessageDelete: { messages: shown, children, timer },
      messages: {
        ...s.messages,
        [message.conversationId]: (s.messages[message.conversationId] ?? [])
          .filter((m) => !gone.has(m.id))
          .map((m) => (m.parentId && gone.has(m.parentId) ? { ...m, parentId: message.parentId } : m))
      }
    }))
  },

  undoMessageDelete() {
    const pendingDelete = useChat.getState().pendingMessageDelete
    if (!pendingDelete) return
    clearTimeout(pendingDelete.timer)
    const { messages, children } = pendingDelete
    const conversationId = messages[0]!.conversationId
    const parents = new Map(children)
    useChat.setState((s) => {
      // Back in their places among the others (the list is oldest first).
      const list = [...(s.messages[conversationId] ?? []).map((m) => (parents.has(m.id) ? { ...m, parentId: parents.get(m.id)! } : m)), ...messages]
      list.sort((a, b) => a.createdAt - b.createdAt)
      return { pendingMessageDelete: undefined, messages: { ...s.messages, [conversationId]: list } }
    })
  },

  async commitMessageDelete() {
    const pendingDelete = useChat.getState().pendingMessageDelete
    if (!pendingDelete) return
    clearTimeout(pendingDelete.timer)
    useChat.setState({ pendingMessageDelete: undefined })
    let ok = true
    // The last first: each delete moves what hung under it up to its parent.
    for (const message of [...pendingDelete.messages].reverse()) ok = (await bridge().call('chat.deleteMessage', { messageId: message.id })).ok && ok
    const conversationId = pendingDelete.messages[0]!.conversationId
    // Not deleted (the connection dropped): reloading the conversation shows it again, as it is.
    if (!ok || useChat.getState().currentId === conversationId) await conversationActions.open(conversationId)
  },

  switchBranch(message: Message, direction: -1 | 1) {
    const list = useChat.getState().messages[message.conversationId] ?? []
    const siblings = list.filter((m) => m.parentId === message.parentId)
    const at = siblings.findIndex((m) => m.id === message.id)
    const next = siblings[at + direction]
    if (!next) return
    useChat.setState((s) => ({ branch: { ...s.branch, [message.parentId ?? '']: next.id } }))
  },

  copy(message: Message) {
    void navigator.clipboard.writeText(messageText(message.content)).catch(() => undefined)
  },

  /** A message changed in the core (translation, summary): the stored copy replaces ours. */
  replaceMessage(message: Message) {
    upsert(message.conversationId, message)
  }
}
