import type { StreamHandle } from '../../../shared/bridge/client'
import type { ChatStreamEvent } from '../../../shared/bridge/procedures/chat'
import type { ActiveTask } from '../../../shared/bridge/procedures/tasks'
import { followTask } from '../../bridge/follow-task'
import type { Message } from '../../../shared/data/message'
import type { Result } from '../../../shared/errors/app-error'
import { applyStreamEvent, type LiveMessage } from '../../../shared/chat/apply-event'
import type { StreamEvent } from '../../../shared/stream/events'
import { isUntitled } from '../../../shared/chat/default-names'
import { bridge } from '../../stores/app-store'
import { applyToolEvent } from '../tools/tool-run-store'
import { COMMIT_INTERVAL_MS, useChat } from './chat-state'
import { followLatest } from './follow-latest'

/** The chat store's replies: following reply streams into the live messages, and the title task. */

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

export function upsert(conversationId: string, message: Message) {
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
        // The title is its own task after a complete reply (a retry after a failure too).
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
    onRefused: (error) => {
      if (!live || !conversationId) return useChat.setState({ sendError: error })
      // A re-attach after reconnecting was refused: the core restarted (or the reply ended long
      // ago). The stored row is the truth now: re-read it (interrupted, with the text that was
      // saved) so Continue is offered, Stop goes and the composer sends again.
      const id = live.id
      handles.delete(id)
      pending.delete(id)
      useChat.setState((s) => {
        const streaming = { ...s.streaming }
        delete streaming[id]
        return { streaming }
      })
      void rereadReply(conversationId, id)
    }
  })
  return handle
}

async function rereadReply(conversationId: string, messageId: string) {
  const result = await bridge().call('chat.messages', { conversationId })
  if (!result.ok) return
  const stored = result.value.find((m) => m.id === messageId)
  if (stored) upsert(conversationId, stored)
  else removeLocal(conversationId, [messageId])
}

export const replyActions = {
  /** Re-joins a reply that is streaming in the core (after a reload or from another window). */
  attach(task: ActiveTask<'chat'>) {
    if (handles.has(task.meta.messageId)) return
    followStream((handlers) => followTask('chat', task.id, handlers))
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

export function removeLocal(conversationId: string, ids: string[]) {
  useChat.setState((s) => ({ messages: { ...s.messages, [conversationId]: (s.messages[conversationId] ?? []).filter((m) => !ids.includes(m.id)) } }))
}
