import { useMemo } from 'react'
import { messageSetKey, sortConversations, visiblePath } from './branches'
import { create } from 'zustand'
import type { StreamHandle } from '../../../shared/bridge/client'
import type { ActiveReply, ChatStreamEvent } from '../../../shared/bridge/procedures/chat'
import type { Agent, ModelParameters } from '../../../shared/data/agent'
import type { Conversation } from '../../../shared/data/conversation'
import { messageText, type Message } from '../../../shared/data/message'
import type { AppError, Result } from '../../../shared/errors/app-error'
import { applyStreamEvent, type LiveMessage } from '../../../shared/chat/apply-event'
import type { StreamEvent } from '../../../shared/stream/events'
import { bridge } from '../../stores/app-store'
import { applyToolEvent, loadPendingApprovals } from '../tools/tool-run-store'

/** Streaming updates reach React at most this often (issue 7: ~50 ms). */
export const COMMIT_INTERVAL_MS = 50

interface ChatState {
  agents: Agent[]
  conversations: Conversation[]
  defaultAgentId?: string
  /** The agent whose conversations the sidebar shows and new chats use. */
  agentId?: string
  currentId?: string
  /** A message a search result pointed at: the list scrolls to it and highlights it once. */
  focusMessageId?: string
  /** Every message of the loaded conversations, all branches. */
  messages: Record<string, LiveMessage[]>
  /** Which child is shown under a parent (branch selection); absent → the newest. */
  branch: Record<string, string>
  /** Message ids of replies streaming now. */
  streaming: Record<string, true>
  /** A send that failed before any reply existed (no model, bad input…). */
  sendError?: AppError
  /** Conversations deleted but still undoable. */
  pendingDelete?: { conversation: Conversation; timer: ReturnType<typeof setTimeout> }
  /** issue 15: composer controls chosen before the conversation exists (sent with its first message). */
  draftParameters: ModelParameters
  /** Conversations whose title task (scene Summary Topic Title) runs now. */
  titling: Record<string, true>
}

export const useChat = create<ChatState>()(() => ({ agents: [], conversations: [], messages: {}, branch: {}, streaming: {}, draftParameters: {}, titling: {} }))

/**
 * The entries of an id-keyed record (`branch`, `streaming`) that belong to one conversation's
 * messages, plus the root key '' of `branch`. Used with `useShallow`, a page re-renders when its
 * own entries change, not when a reply elsewhere starts or ends.
 */
export function entriesFor<T>(record: Record<string, T>, ids: ReadonlySet<string>): Record<string, T> {
  const out: Record<string, T> = {}
  for (const key in record) if (key === '' || ids.has(key)) out[key] = record[key]!
  return out
}

const handles = new Map<string, StreamHandle>()
const pending = new Map<string, { conversationId: string; message: LiveMessage }>()
let commitTimer: ReturnType<typeof setTimeout> | undefined

function commit() {
  commitTimer = undefined
  if (pending.size === 0) return
  const updates = [...pending.values()]
  pending.clear()
  useChat.setState((s) => {
    const messages = { ...s.messages }
    for (const { conversationId, message } of updates) {
      const list = messages[conversationId] ?? []
      const at = list.findIndex((m) => m.id === message.id)
      messages[conversationId] = at >= 0 ? list.map((m, i) => (i === at ? message : m)) : [...list, message]
    }
    return { messages }
  })
}

function stage(conversationId: string, message: LiveMessage, immediate = false) {
  pending.set(message.id, { conversationId, message })
  if (immediate) return commit()
  commitTimer ??= setTimeout(commit, COMMIT_INTERVAL_MS)
}

function upsert(conversationId: string, message: Message) {
  useChat.setState((s) => {
    const list = s.messages[conversationId] ?? []
    const at = list.findIndex((m) => m.id === message.id)
    return { messages: { ...s.messages, [conversationId]: at >= 0 ? list.map((m, i) => (i === at ? message : m)) : [...list, message] } }
  })
}

/** Follows one reply stream: applies its events to the live message and commits every ~50 ms. */
export function followStream(start: (handlers: Parameters<ReturnType<typeof bridge>['attach']>[2]) => StreamHandle) {
  let conversationId: string | undefined
  let live: LiveMessage | undefined
  const handle = start({
    onEvents: (events: ChatStreamEvent[]) => {
      for (const event of events) {
        if (applyToolEvent(event)) continue
        if (event.type === 'tool_step') {
          // A step of the tool loop finished: its results show on the step's message.
          if (live && conversationId && live.id === event.data.messageId) stage(conversationId, (live = { ...live, toolResults: event.data.toolResults }), true)
          continue
        }
        if (event.type === 'reply') {
          if (live && conversationId && live.id !== event.data.assistantMessage.id) {
            // The tool loop goes on with a new message: the previous step is done.
            const done = { ...live, status: 'complete' as const }
            stage(conversationId, done, true)
            handles.delete(done.id)
            useChat.setState((s) => {
              const streaming = { ...s.streaming }
              delete streaming[done.id]
              return { streaming }
            })
          }
          conversationId = event.data.conversation.id
          live = { ...event.data.assistantMessage }
          const conversation = event.data.conversation
          handles.set(live.id, handle)
          useChat.setState((s) => ({
            streaming: { ...s.streaming, [live!.id]: true },
            conversations: [conversation, ...s.conversations.filter((c) => c.id !== conversation.id)],
            // A new branch is shown as soon as it exists.
            branch: live!.parentId ? { ...s.branch, [live!.parentId]: live!.id } : s.branch
          }))
          if (event.data.userMessage) {
            upsert(conversationId, event.data.userMessage)
            const parent = event.data.userMessage.parentId
            if (parent) useChat.setState((s) => ({ branch: { ...s.branch, [parent]: event.data.userMessage!.id } }))
          }
          stage(conversationId, live, true)
        } else if (event.type === 'title') {
          useChat.setState((s) => ({ conversations: s.conversations.map((c) => (c.id === event.data.conversationId ? { ...c, title: event.data.title } : c)) }))
        } else if (event.type === 'options') {
          if (live && conversationId) stage(conversationId, (live = { ...live, meta: { ...live.meta, options: event.data } }))
        } else if (event.type === 'summary') {
          upsert(event.data.conversationId, event.data.message)
        } else if (event.type === 'cost') {
          if (live && conversationId) stage(conversationId, (live = { ...live, cost: event.data }))
        } else if (live && conversationId) {
          live = applyStreamEvent(live, event as StreamEvent)
          stage(conversationId, live)
        }
      }
    },
    onEnd: (result: Result<Message>) => {
      if (live && conversationId) {
        if (result.ok) stage(conversationId, { ...result.value, reasoningDurationMs: live.reasoningDurationMs }, true)
        else stage(conversationId, { ...live, status: 'error', error: result.error }, true)
        // issue 15: the title is its own task after a complete reply (a retry after a failure too).
        if (result.ok && result.value.status === 'complete') titleTask.start(conversationId)
        const id = live.id
        handles.delete(id)
        useChat.setState((s) => {
          const streaming = { ...s.streaming }
          delete streaming[id]
          return { streaming }
        })
      } else if (!result.ok) {
        useChat.setState({ sendError: result.error })
      }
    },
    onRefused: (error) => useChat.setState({ sendError: error })
  })
  return handle
}

export const chatActions = {
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
    const active = await bridge().call('chat.active', {})
    if (active.ok) for (const reply of active.value) chatActions.attach(reply)
    await loadPendingApprovals()
  },

  /** Re-joins a reply that is streaming in the core (after a reload or from another window). */
  attach(reply: ActiveReply) {
    if (handles.has(reply.messageId)) return
    followStream((handlers) => bridge().attach('chat.send', reply.streamId, handlers, 0))
  },

  selectAgent(agentId: string) {
    useChat.setState({ agentId })
  },

  async createAgent(name: string) {
    const result = await bridge().call('data.agents.create', { name })
    if (result.ok) useChat.setState((s) => ({ agents: [...s.agents, result.value], agentId: result.value.id }))
    return result
  },

  async open(conversationId: string | undefined) {
    useChat.setState({ currentId: conversationId, sendError: undefined })
    const conversation = useChat.getState().conversations.find((c) => c.id === conversationId)
    if (conversation) useChat.setState({ agentId: conversation.agentId })
    if (!conversationId) return
    const result = await bridge().call('chat.messages', { conversationId })
    if (!result.ok) return
    // Keep live copies of replies still streaming; the database row lags up to a second.
    useChat.setState((s) => {
      const live = new Map((s.messages[conversationId] ?? []).filter((m) => s.streaming[m.id]).map((m) => [m.id, m]))
      return { messages: { ...s.messages, [conversationId]: result.value.map((m) => live.get(m.id) ?? m) } }
    })
  },

  send(text: string, images: { dataUrl: string }[] = [], model?: { providerId: string; modelId: string }, files: string[] = []) {
    const { currentId, messages, agentId, defaultAgentId } = useChat.getState()
    const visible = currentId ? visiblePath(messages[currentId] ?? [], useChat.getState().branch) : []
    const parentId = visible[visible.length - 1]?.id
    useChat.setState({ sendError: undefined })
    followStream((handlers) =>
      bridge().stream(
        'chat.send',
        {
          ...(currentId ? { conversationId: currentId } : { agentId: agentId ?? defaultAgentId }),
          ...(parentId ? { parentId } : {}),
          text,
          ...(images.length ? { images } : {}),
          ...(files.length ? { files } : {}),
          ...(model ?? {}),
          ...(!currentId && Object.keys(useChat.getState().draftParameters).length ? { parameters: useChat.getState().draftParameters } : {})
        },
        {
          ...handlers,
          onEvents: (events: ChatStreamEvent[], from: number) => {
            const reply = events.find((e) => e.type === 'reply')
            if (reply && reply.type === 'reply' && !useChat.getState().currentId) {
              useChat.setState({ currentId: reply.data.conversation.id })
              location.hash = `/chat/${reply.data.conversation.id}`
            }
            handlers?.onEvents?.(events, from)
          }
        }
      )
    )
  },

  stop(messageId?: string) {
    const ids = messageId ? [messageId] : Object.keys(useChat.getState().streaming)
    const current = useChat.getState().currentId
    for (const id of ids) {
      const message = current ? useChat.getState().messages[current]?.find((m) => m.id === id) : undefined
      if (!messageId && !message) continue // Esc stops the replies of the conversation on screen only
      handles.get(id)?.cancel()
    }
  },

  regenerate(message: Message, deleteOld = false) {
    if (deleteOld) removeLocal(message.conversationId, [message.id])
    followStream((handlers) => bridge().stream('chat.regenerate', { messageId: message.id, deleteOld }, handlers))
  },

  editAndResend(message: Message, text: string) {
    followStream((handlers) => bridge().stream('chat.editAndResend', { messageId: message.id, text }, handlers))
  },

  continueReply(message: Message) {
    followStream((handlers) => bridge().stream('chat.continue', { messageId: message.id }, handlers))
  },

  async updateMessage(message: Message, text: string) {
    const content = [{ type: 'text' as const, text }, ...message.content.filter((p) => p.type !== 'text')]
    const result = await bridge().call('data.messages.update', { id: message.id, patch: { content } })
    if (result.ok) upsert(message.conversationId, result.value)
  },

  async deleteMessage(message: Message) {
    const result = await bridge().call('chat.deleteMessage', { messageId: message.id })
    if (result.ok) await chatActions.open(message.conversationId)
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
    if (state.pendingDelete) chatActions.commitDelete()
    const timer = setTimeout(() => chatActions.commitDelete(), 6000)
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

  switchBranch(message: Message, direction: -1 | 1) {
    const list = useChat.getState().messages[message.conversationId] ?? []
    const siblings = list.filter((m) => m.parentId === message.parentId)
    const at = siblings.findIndex((m) => m.id === message.id)
    const next = siblings[at + direction]
    if (!next) return
    useChat.setState((s) => ({ branch: { ...s.branch, [message.parentId ?? '']: next.id } }))
  },

  copy(message: Message) {
    void navigator.clipboard.writeText(messageText(message.content))
  },

  /** A message changed in the core (translation, summary): the stored copy replaces ours. */
  replaceMessage(message: Message) {
    upsert(message.conversationId, message)
  },

  /** issue 15: the composer's controls: the conversation's parameters, or the draft of a new one. */
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
  },

  cancelTitle(conversationId: string) {
    return titleTask.cancel(conversationId)
  }
}

/** Scene Summary Topic Title as its own stream: started after a reply, cancellable on its own (Esc). */
const titleTask = {
  handles: new Map<string, StreamHandle>(),
  start(conversationId: string) {
    const conversation = useChat.getState().conversations.find((c) => c.id === conversationId)
    if ((conversation && conversation.title.trim() && conversation.title !== 'New chat') || this.handles.has(conversationId)) return
    const done = () => {
      this.handles.delete(conversationId)
      useChat.setState((s) => {
        const titling = { ...s.titling }
        delete titling[conversationId]
        return { titling }
      })
    }
    useChat.setState((s) => ({ titling: { ...s.titling, [conversationId]: true } }))
    const handle = bridge().stream(
      'chat.title',
      { conversationId },
      {
        onEvents: (events: ChatStreamEvent[]) => {
          for (const event of events)
            if (event.type === 'title') useChat.setState((s) => ({ conversations: s.conversations.map((c) => (c.id === event.data.conversationId ? { ...c, title: event.data.title } : c)) }))
        },
        onEnd: done,
        onRefused: done
      }
    )
    this.handles.set(conversationId, handle)
  },
  cancel(conversationId: string): boolean {
    const handle = this.handles.get(conversationId)
    if (!handle) return false
    handle.cancel()
    return true
  }
}

function removeLocal(conversationId: string, ids: string[]) {
  useChat.setState((s) => ({ messages: { ...s.messages, [conversationId]: (s.messages[conversationId] ?? []).filter((m) => !ids.includes(m.id)) } }))
}

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
