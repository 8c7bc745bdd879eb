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
   * it after a few seconds unless undone — the same Undo as a conversation's.
   */
  deleteMessage(message: Message) {
    if (useChat.getState().pendingMessageDelete) messageActions.commitMessageDelete()
    const list = useChat.getState().messages[message.conversationId] ?? []
    const shown = list.find((m) => m.id === message.id)
    if (!shown) return
    const children = list.filter((m) => m.parentId === message.id).map((m) => m.id)
    const timer = setTimeout(() => messageActions.commitMessageDelete(), 6000)
    useChat.setState((s) => ({
      pendingMessageDelete: { message: shown, children, timer },
      messages: {
        ...s.messages,
        [message.conversationId]: (s.messages[message.conversationId] ?? [])
          .filter((m) => m.id !== message.id)
          .map((m) => (m.parentId === message.id ? { ...m, parentId: message.parentId } : m))
      }
    }))
  },

  undoMessageDelete() {
    const pendingDelete = useChat.getState().pendingMessageDelete
    if (!pendingDelete) return
    clearTimeout(pendingDelete.timer)
    const { message, children } = pendingDelete
    useChat.setState((s) => {
      const list = (s.messages[message.conversationId] ?? []).map((m) => (children.includes(m.id) ? { ...m, parentId: message.id } : m))
      // Back in its place among the others (the list is oldest first).
      const at = list.findIndex((m) => m.createdAt > message.createdAt)
      const restored = at < 0 ? [...list, message] : [...list.slice(0, at), message, ...list.slice(at)]
      return { pendingMessageDelete: undefined, messages: { ...s.messages, [message.conversationId]: restored } }
    })
  },

  async commitMessageDelete() {
    const pendingDelete = useChat.getState().pendingMessageDelete
    if (!pendingDelete) return
    clearTimeout(pendingDelete.timer)
    useChat.setState({ pendingMessageDelete: undefined })
    const result = await bridge().call('chat.deleteMessage', { messageId: pendingDelete.message.id })
    // Not deleted (the connection dropped): reloading the conversation shows it again, as it is.
    if (!result.ok || useChat.getState().currentId === pendingDelete.message.conversationId) await conversationActions.open(pendingDelete.message.conversationId)
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
