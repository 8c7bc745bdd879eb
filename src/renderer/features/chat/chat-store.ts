import { useMemo } from 'react'
import { messageSetKey, sortConversations, visiblePath } from './branches'
import { create } from 'zustand'
import type { StreamHandle } from '../../../shared/bridge/client'
import type { ChatStreamEvent } from '../../../shared/bridge/procedures/chat'
import type { ActiveTask } from '../../../shared/bridge/procedures/tasks'
import { followRunningTasks, followTask } from '../../bridge/follow-task'
import type { Agent, ModelParameters } from '../../../shared/data/agent'
import type { Conversation } from '../../../shared/data/conversation'
import { messageText, type Message } from '../../../shared/data/message'
import type { AppError, Result } from '../../../shared/errors/app-error'
import { applyStreamEvent, type LiveMessage } from '../../../shared/chat/apply-event'
import type { StreamEvent } from '../../../shared/stream/events'
import { bridge, useApp } from '../../stores/app-store'
import { followLatest } from './follow-latest'
import { isUntitled } from '../../../shared/chat/default-names'
import { draftKeyOf, restoreDraft } from './drafts'
import { outbox, useOutbox, type QueuedMessage } from './outbox'
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
  /** issue 17: a message deleted but still undoable, as a conversation is. */
  pendingMessageDelete?: { message: LiveMessage; children: string[]; timer: ReturnType<typeof setTimeout> }
  /** issue 15: composer controls chosen before the conversation exists (sent with its first message). */
  draftParameters: ModelParameters
  /** Knowledge bases chosen for a new chat before its first message (sent with it). */
  draftKnowledge: string[]
  /** Conversations whose title task (scene Summary Topic Title) runs now. */
  titling: Record<string, true>
}

export const useChat = create<ChatState>()(() => ({ agents: [], conversations: [], messages: {}, branch: {}, streaming: {}, draftParameters: {}, draftKnowledge: [], titling: {} }))

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

const outboxHandles = new Map<string, { handle: StreamHandle; lane: string }>()
/** Conversations with an outbox message on its way (see flushOutbox). */
const outboxLanes = new Set<string>()

interface SendHooks {
  /** The core stored the user's message (the reply began). */
  onAccepted?(): void
  /** The reply ended, whatever the outcome. */
  onDone?(): void
  onRefused?(): void
}

/** One `chat.send` for a message (sent now, or from the outbox). */
function startSend(target: Omit<QueuedMessage, 'id' | 'state' | 'at'>, hooks: SendHooks = {}): StreamHandle {
  let accepted = false
  return followStream((handlers) =>
    bridge().stream(
      'chat.send',
      {
        ...(target.conversationId ? { conversationId: target.conversationId } : { agentId: target.agentId }),
        ...(target.parentId ? { parentId: target.parentId } : {}),
        text: target.text,
        ...(target.images.length ? { images: target.images } : {}),
        ...(target.files.length ? { files: target.files } : {}),
        ...(target.model ?? {}),
        ...(target.parameters ? { parameters: target.parameters } : {}),
        ...(target.knowledgeBaseIds ? { knowledgeBaseIds: target.knowledgeBaseIds } : {})
      },
      {
        ...handlers,
        onEvents: (events: ChatStreamEvent[], from: number) => {
          const reply = events.find((e) => e.type === 'reply')
          // A new chat opens once it exists (unless the user went to another one meanwhile).
          if (reply && reply.type === 'reply' && !target.conversationId && !useChat.getState().currentId) {
            useChat.setState({ currentId: reply.data.conversation.id })
            location.hash = `/chat/${reply.data.conversation.id}`
          }
          handlers?.onEvents?.(events, from)
          if (reply && !accepted) {
            accepted = true
            hooks.onAccepted?.()
          }
        },
        onEnd: (result) => {
          handlers?.onEnd?.(result)
          hooks.onDone?.()
        },
        onRefused: (error) => {
          handlers?.onRefused?.(error)
          hooks.onRefused?.()
        }
      }
    )
  )
}

// issue 17: the outbox goes out when the connection comes back; a send the core had not yet
// acknowledged when it dropped waits again (the socket may have lost it).
useApp.subscribe((state, prev) => {
  if (state.connection === prev.connection) return
  if (state.connection === 'open') return chatActions.flushOutbox()
  for (const item of useOutbox.getState().items) {
    if (item.state !== 'sending') continue
    const sending = outboxHandles.get(item.id)
    sending?.handle.detach()
    outboxHandles.delete(item.id)
    if (sending) outboxLanes.delete(sending.lane)
    outbox.mark(item.id, 'queued')
  }
})

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
    await followRunningTasks('chat', (task) => chatActions.attach(task))
    await loadPendingApprovals()
    // Messages that waited for the connection before a reload go out now.
    chatActions.flushOutbox()
  },

  /** Re-joins a reply that is streaming in the core (after a reload or from another window). */
  attach(task: ActiveTask<'chat'>) {
    if (handles.has(task.meta.messageId)) return
    followStream((handlers) => followTask('chat', task.id, handlers))
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
    // Keep live copies of replies still streaming; the database row lags up to a second. A reply
    // that ended while this list was on its way (re-followed after a reload, issue 18) keeps its
    // final copy too: the row read earlier is older than it.
    useChat.setState((s) => {
      const mine = new Map((s.messages[conversationId] ?? []).map((m) => [m.id, m]))
      const newer = (m: Message) => {
        const local = mine.get(m.id)
        return local && (s.streaming[m.id] || local.updatedAt > m.updatedAt) ? local : m
      }
      return { messages: { ...s.messages, [conversationId]: result.value.map(newer) } }
    })
  },

  send(text: string, images: { dataUrl: string }[] = [], model?: { providerId: string; modelId: string }, files: string[] = []) {
    const { currentId, messages, agentId, defaultAgentId, draftParameters, draftKnowledge } = useChat.getState()
    const visible = currentId ? visiblePath(messages[currentId] ?? [], useChat.getState().branch) : []
    const parentId = visible[visible.length - 1]?.id
    useChat.setState({ sendError: undefined })
    followLatest.request()
    const target: Omit<QueuedMessage, 'id' | 'state' | 'at'> = {
      ...(currentId ? { conversationId: currentId } : { agentId: agentId ?? defaultAgentId }),
      ...(parentId ? { parentId } : {}),
      text,
      images,
      files,
      ...(model ? { model } : {}),
      ...(!currentId && Object.keys(draftParameters).length ? { parameters: draftParameters } : {}),
      ...(!currentId && draftKnowledge.length ? { knowledgeBaseIds: draftKnowledge } : {})
    }
    // The draft went with the message that makes the chat; the next new chat starts without it.
    if (!currentId && draftKnowledge.length) useChat.setState({ draftKnowledge: [] })
    // issue 17: without a connection the message waits in the outbox (shown, cancellable, kept
    // across a reload) and goes out when the connection is back: nothing typed is lost.
    if (useApp.getState().connection !== 'open') {
      // Behind another waiting message it answers that one's reply: the core's default parent
      // (the newest message) once the one before has gone out.
      const behind = useOutbox.getState().items.some((m) => m.conversationId !== undefined && m.conversationId === currentId)
      const { parentId: _parent, ...rest } = target
      return void outbox.add(behind ? rest : target)
    }
    startSend(target)
  },

  /**
   * Sends what waited for the connection, oldest first, once the core is reachable and ready.
   * One at a time per conversation: the next waits for the previous reply, so it follows it
   * instead of becoming its sibling.
   */
  flushOutbox() {
    const app = useApp.getState()
    if (app.connection !== 'open' || app.init.phase !== 'ready') return
    for (const item of useOutbox.getState().items) {
      const lane = item.conversationId ?? `new:${item.id}`
      if (item.state !== 'queued' || outboxLanes.has(lane)) continue
      outboxLanes.add(lane)
      outbox.mark(item.id, 'sending')
      let done = false
      const finish = () => {
        if (done) return
        done = true
        outboxHandles.delete(item.id)
        outboxLanes.delete(lane)
        chatActions.flushOutbox()
      }
      const handle = startSend(item, {
        // The core stored the message: it shows in the conversation now, not as waiting.
        onAccepted: () => void outbox.remove(item.id),
        onDone: finish,
        onRefused: () => {
          // Refused (a deleted conversation, an invalid input): the text goes back to its draft.
          outbox.remove(item.id)
          restoreDraft(draftKeyOf(item.conversationId), item.text)
          finish()
        }
      })
      outboxHandles.set(item.id, { handle, lane })
    }
  },

  /** Cancels a message waiting for the connection; its text is returned (to the composer). */
  cancelQueued(id: string): QueuedMessage | undefined {
    const sending = outboxHandles.get(id)
    if (sending) {
      sending.handle.detach()
      outboxHandles.delete(id)
      outboxLanes.delete(sending.lane)
    }
    return outbox.remove(id)
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
    followLatest.request()
    followStream((handlers) => bridge().stream('chat.regenerate', { messageId: message.id, deleteOld }, handlers))
  },

  editAndResend(message: Message, text: string) {
    followLatest.request()
    followStream((handlers) => bridge().stream('chat.editAndResend', { messageId: message.id, text }, handlers))
  },

  continueReply(message: Message) {
    followLatest.request()
    followStream((handlers) => bridge().stream('chat.continue', { messageId: message.id }, handlers))
  },

  async updateMessage(message: Message, text: string) {
    const content = [{ type: 'text' as const, text }, ...message.content.filter((p) => p.type !== 'text')]
    const result = await bridge().call('data.messages.update', { id: message.id, patch: { content } })
    if (result.ok) upsert(message.conversationId, result.value)
  },

  /**
   * Hides the message now (its replies move up to its parent, as the core will do) and deletes
   * it after a few seconds unless undone — the same Undo as a conversation's (issue 17).
   */
  deleteMessage(message: Message) {
    if (useChat.getState().pendingMessageDelete) chatActions.commitMessageDelete()
    const list = useChat.getState().messages[message.conversationId] ?? []
    const shown = list.find((m) => m.id === message.id)
    if (!shown) return
    const children = list.filter((m) => m.parentId === message.id).map((m) => m.id)
    const timer = setTimeout(() => chatActions.commitMessageDelete(), 6000)
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
    if (!result.ok || useChat.getState().currentId === pendingDelete.message.conversationId) await chatActions.open(pendingDelete.message.conversationId)
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
    void navigator.clipboard.writeText(messageText(message.content)).catch(() => undefined)
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
    if ((conversation && !isUntitled(conversation.title)) || this.handles.has(conversationId)) return
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
