import { sortConversations } from './branches'
import type { ModelParameters } from '../../../shared/data/agent'
import type { Message } from '../../../shared/data/message'
import { followRunningTasks } from '../../bridge/follow-task'
import { bridge } from '../../stores/app-store'
import { loadPendingApprovals } from '../tools/tool-run-store'
import { useChat } from './chat-state'
import { replyActions } from './chat-replies'
import { sendActions } from './chat-send'

/** The chat store's conversations and agents: the sidebar, opening, renaming, deleting with undo, models and parameters. */
export const conversationActions = {
  /** Opens the conversation of a search hit, scrolled to the message (see MessageList). */
  showMessage(conversationId: string, messageId: string) {
    useChat.setState({ focusMessageId: messageId })
    location.hash = `/chat/${conversationId}`
  },

  clearFocus() {
    useChat.setState({ focusMessageId: undefined })
  },

  async load() {
    const sidebar = await bridge().call('chat.sidebar', {})
    if (sidebar.ok)
      useChat.setState((s) => ({
        agents: sidebar.value.agents,
        conversations: sidebar.value.conversations,
        defaultAgentId: sidebar.value.defaultAgentId,
        agentId: s.agentId ?? sidebar.value.defaultAgentId
      }))
    await followRunningTasks('chat', (task) => replyActions.attach(task))
    await loadPendingApprovals()
    // Messages that waited for the connection before a reload go out now.
    sendActions.flushOutbox()
  },

  selectAgent(agentId: string) {
    useChat.setState({ agentId })
  },

  async createAgent(name: string) {
    const result = await bridge().call('data.agents.create', { name })
    // The new agent's editor opens at once: a name, a prompt and a model are what it needs next.
    if (result.ok) useChat.setState((s) => ({ agents: [...s.agents, result.value], agentId: result.value.id, agentEditorOpen: true }))
    return result
  },

  async open(conversationId: string | undefined) {
    useChat.setState({ currentId: conversationId, sendError: undefined })
    const conversation = useChat.getState().conversations.find((c) => c.id === conversationId)
    if (conversation) useChat.setState({ agentId: conversation.agentId })
    if (!conversationId) return
    const result = await bridge().call('chat.messages', { conversationId })
    if (!result.ok) return
    // Keep live copies of replies still streaming; the database row lags up to a second. A reply
    // that ended while this list was on its way (re-followed after a reload) keeps its
    // final copy too: the row read earlier is older than it.
    useChat.setState((s) => {
      const mine = new Map((s.messages[conversationId] ?? []).map((m) => [m.id, m]))
      const newer = (m: Message) => {
        const local = mine.get(m.id)
        return local && (s.streaming[m.id] || local.updatedAt > m.updatedAt) ? local : m
      }
      return { messages: { ...s.messages, [conversationId]: result.value.map(newer) } }
    })
    await conversationActions.settleEnded(conversationId)
  },

  /**
   * A reply this list shows as streaming that no task is running any more ended between the read
   * and the re-attach after a reload (which follows only running tasks): read it again, or its
   * column stays "streaming" with its last flushed text. One more read; a running one is followed.
   */
  async settleEnded(conversationId: string) {
    const shown = () => (useChat.getState().messages[conversationId] ?? []).filter((m) => m.status === 'streaming' && !useChat.getState().streaming[m.id])
    if (shown().length === 0) return
    const active = await bridge().call('tasks.active', { kind: 'chat' })
    if (!active.ok) return
    const running = new Set(active.value.flatMap((t) => (t.kind === 'chat' ? [t.meta.messageId] : [])))
    const ended = new Set(shown().filter((m) => !running.has(m.id)).map((m) => m.id))
    if (ended.size === 0) return
    const again = await bridge().call('chat.messages', { conversationId })
    if (!again.ok) return
    const final = new Map(again.value.filter((m) => ended.has(m.id) && m.status !== 'streaming').map((m) => [m.id, m]))
    if (final.size === 0) return
    useChat.setState((s) => ({
      messages: { ...s.messages, [conversationId]: (s.messages[conversationId] ?? []).map((m) => (s.streaming[m.id] ? m : (final.get(m.id) ?? m))) }
    }))
  },

  async rename(conversationId: string, title: string) {
    const result = await bridge().call('data.conversations.update', { id: conversationId, patch: { title } })
    if (result.ok) useChat.setState((s) => ({ conversations: s.conversations.map((c) => (c.id === conversationId ? result.value : c)) }))
  },

  async pin(conversationId: string, pinned: boolean) {
    const result = await bridge().call('data.conversations.update', { id: conversationId, patch: { pinned } })
    if (result.ok) useChat.setState((s) => ({ conversations: s.conversations.map((c) => (c.id === conversationId ? result.value : c)) }))
  },

  /** Hides the conversation now and deletes it after a few seconds unless undone. */
  remove(conversationId: string) {
    const state = useChat.getState()
    const conversation = state.conversations.find((c) => c.id === conversationId)
    if (!conversation) return
    if (state.pendingDelete) conversationActions.commitDelete()
    const timer = setTimeout(() => conversationActions.commitDelete(), 6000)
    useChat.setState((s) => ({ conversations: s.conversations.filter((c) => c.id !== conversationId), pendingDelete: { conversation, timer } }))
    if (state.currentId === conversationId) {
      useChat.setState({ currentId: undefined })
      location.hash = '/chat'
    }
  },

  undoDelete() {
    const pendingDelete = useChat.getState().pendingDelete
    if (!pendingDelete) return
    clearTimeout(pendingDelete.timer)
    useChat.setState((s) => ({ conversations: sortConversations([pendingDelete.conversation, ...s.conversations]), pendingDelete: undefined }))
  },

  commitDelete() {
    const pendingDelete = useChat.getState().pendingDelete
    if (!pendingDelete) return
    clearTimeout(pendingDelete.timer)
    useChat.setState({ pendingDelete: undefined })
    void bridge().call('data.conversations.delete', { id: pendingDelete.conversation.id })
  },

  async setModel(providerId: string, modelId: string) {
    const { currentId, agentId: selected, defaultAgentId: fallback } = useChat.getState()
    const defaultAgentId = selected ?? fallback
    if (currentId) {
      const result = await bridge().call('data.conversations.update', { id: currentId, patch: { providerId, modelId } })
      if (result.ok) useChat.setState((s) => ({ conversations: s.conversations.map((c) => (c.id === currentId ? result.value : c)) }))
    } else if (defaultAgentId) {
      // Without a conversation yet, the choice becomes the agent's default for new chats.
      const result = await bridge().call('data.agents.update', { id: defaultAgentId, patch: { providerId, modelId } })
      if (result.ok) useChat.setState((s) => ({ agents: s.agents.map((a) => (a.id === defaultAgentId ? result.value : a)) }))
    }
  },

  /** The composer's controls: the conversation's parameters, or the draft of a new one. */
  async setParameters(patch: Partial<ModelParameters>) {
    const { currentId, conversations, draftParameters } = useChat.getState()
    const conversation = conversations.find((c) => c.id === currentId)
    const merge = (base: ModelParameters | undefined) => {
      const next: ModelParameters = { ...base }
      for (const [key, value] of Object.entries(patch) as [keyof ModelParameters, unknown][]) {
        if (value === undefined) delete next[key]
        else (next as Record<string, unknown>)[key] = value
      }
      return next
    }
    if (!conversation) return useChat.setState({ draftParameters: merge(draftParameters) })
    const parameters = merge(conversation.parameters)
    useChat.setState((s) => ({ conversations: s.conversations.map((c) => (c.id === conversation.id ? { ...c, parameters } : c)) }))
    const result = await bridge().call('data.conversations.update', { id: conversation.id, patch: { parameters } })
    if (result.ok) useChat.setState((s) => ({ conversations: s.conversations.map((c) => (c.id === conversation.id ? result.value : c)) }))
  }
}
