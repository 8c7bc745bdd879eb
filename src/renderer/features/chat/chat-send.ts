import type { StreamHandle } from '../../../shared/bridge/client'
import type { ChatStreamEvent } from '../../../shared/bridge/procedures/chat'
import { bridge, useApp } from '../../stores/app-store'
import { visiblePath } from './branches'
import { useChat } from './chat-state'
import { followStream } from './chat-replies'
import { draftKeyOf, restoreDraft } from './drafts'
import { followLatest } from './follow-latest'
import { outbox, useOutbox, type QueuedMessage } from './outbox'
import { takeMessageTools } from '../tools/message-tools-toggle'
import type { MessageToolChoice } from '../../../shared/tools/types'

const withTools = (tools: MessageToolChoice | undefined) => (tools ? { tools } : {})

/** The chat store's sending: a message now, or from the outbox once the connection is back. */

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
        ...(target.knowledgeBaseIds ? { knowledgeBaseIds: target.knowledgeBaseIds } : {}),
        ...(target.tools ? { tools: target.tools } : {})
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

export const sendActions = {
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
      ...(!currentId && draftKnowledge.length ? { knowledgeBaseIds: draftKnowledge } : {}),
      // The composer's tools choice goes with this message only.
      ...withTools(takeMessageTools())
    }
    // The draft went with the message that makes the chat; the next new chat starts without it.
    if (!currentId && draftKnowledge.length) useChat.setState({ draftKnowledge: [] })
    // Without a connection the message waits in the outbox (shown, cancellable, kept
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
        sendActions.flushOutbox()
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
  }
}

// The outbox goes out when the connection comes back; a send the core had not yet
// acknowledged when it dropped waits again (the socket may have lost it).
useApp.subscribe((state, prev) => {
  if (state.connection === prev.connection) return
  if (state.connection === 'open') return sendActions.flushOutbox()
  for (const item of useOutbox.getState().items) {
    if (item.state !== 'sending') continue
    const sending = outboxHandles.get(item.id)
    sending?.handle.detach()
    outboxHandles.delete(item.id)
    if (sending) outboxLanes.delete(sending.lane)
    outbox.mark(item.id, 'queued')
  }
})
