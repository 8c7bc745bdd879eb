import { create } from 'zustand'
import type { CompetitionStarted } from '../../../../shared/bridge/procedures/competition'
import { COMPETITION_MAX_MODELS, COMPETITION_MIN_MODELS, sameModel, type CompetitionModel } from '../../../../shared/chat/competition'
import type { Message } from '../../../../shared/data/message'
import { bridge } from '../../../stores/app-store'
import { visiblePath } from '../branches'
import { chatActions, followStream, useChat } from '../chat-store'

interface CompetitionState {
  /** The models the next message goes to; two or more make the composer send a competition. */
  models: CompetitionModel[]
}

export const useCompetition = create<CompetitionState>()(() => ({ models: [] }))

/** A user message answered by a competition the user has not decided yet (columns are shown). */
export function undecided(userMessage: Message | undefined): boolean {
  return Boolean(userMessage?.meta?.competition && !userMessage.meta.competition.chosenId)
}

/**
 * Follows each competing reply as the chat follows any reply: the same stream handling (and so
 * the one `applyEventToMessage`), the same re-attach after a reload (`tasks.active({ kind: "chat" })` lists them).
 */
function followAll(started: CompetitionStarted) {
  const { conversation, userMessage } = started
  useChat.setState((s) => {
    const list = (s.messages[conversation.id] ?? []).filter((m) => m.id !== userMessage.id)
    return {
      sendError: undefined,
      conversations: [conversation, ...s.conversations.filter((c) => c.id !== conversation.id)],
      messages: { ...s.messages, [conversation.id]: [...list, userMessage] },
      branch: { ...s.branch, [userMessage.parentId ?? '']: userMessage.id }
    }
  })
  for (const reply of started.replies) followStream((handlers) => bridge().attach('chat.send', reply.streamId, handlers, 0))
}

export const competitionActions = {
  toggle(model: CompetitionModel) {
    useCompetition.setState((s) => {
      if (s.models.some((m) => sameModel(m, model))) return { models: s.models.filter((m) => !sameModel(m, model)) }
      if (s.models.length >= COMPETITION_MAX_MODELS) return s
      return { models: [...s.models, { providerId: model.providerId, modelId: model.modelId }] }
    })
  },

  clear() {
    useCompetition.setState({ models: [] })
  },

  /**
   * The composer's send: a competition when two or more models are chosen (returns true).
   * Otherwise, a message sent below an undecided competition continues from the reply on
   * screen, which becomes the chosen one; the caller then sends as usual (returns false).
   */
  intercept(text: string, images: { dataUrl: string }[], files?: string[]): boolean {
    const { models } = useCompetition.getState()
    if (models.length >= COMPETITION_MIN_MODELS) {
      void competitionActions.start(text, images, files ?? [], models)
      return true
    }
    const { currentId, messages, branch } = useChat.getState()
    const path = currentId ? visiblePath(messages[currentId] ?? [], branch) : []
    // The reply on screen is the one right after the last user message (what follows it, a
    // continuation or tool steps, goes on from that reply).
    const turn = path.findLastIndex((m) => m.role === 'user')
    const reply = turn >= 0 ? path[turn + 1] : undefined
    if (reply?.role === 'assistant' && undecided(path[turn])) void competitionActions.choose(reply)
    return false
  },

  async start(text: string, images: { dataUrl: string }[], files: string[], models: CompetitionModel[]) {
    const { currentId, messages, branch, agentId, defaultAgentId, draftParameters, draftKnowledge } = useChat.getState()
    const path = currentId ? visiblePath(messages[currentId] ?? [], branch) : []
    const parentId = path[path.length - 1]?.id
    useChat.setState({ sendError: undefined })
    const result = await bridge().call('competition.start', {
      ...(currentId ? { conversationId: currentId } : { ...((agentId ?? defaultAgentId) ? { agentId: agentId ?? defaultAgentId } : {}) }),
      ...(parentId ? { parentId } : {}),
      text,
      ...(images.length ? { images } : {}),
      ...(files.length ? { files } : {}),
      ...(!currentId && Object.keys(draftParameters).length ? { parameters: draftParameters } : {}),
      ...(!currentId && draftKnowledge.length ? { knowledgeBaseIds: draftKnowledge } : {}),
      models
    })
    if (!result.ok) return useChat.setState({ sendError: result.error })
    if (!currentId && draftKnowledge.length) useChat.setState({ draftKnowledge: [] })
    followAll(result.value)
    if (!currentId) {
      useChat.setState({ currentId: result.value.conversation.id })
      location.hash = `/chat/${result.value.conversation.id}`
    }
  },

  /** One column again (`reply`), or every column (`userMessage`). */
  async regenerate(target: { reply: Message } | { userMessage: Message }) {
    const result = await bridge().call('competition.regenerate', 'reply' in target ? { messageId: target.reply.id } : { userMessageId: target.userMessage.id })
    if (!result.ok) return useChat.setState({ sendError: result.error })
    followAll(result.value)
  },

  /** The reply to continue with: shown at once, recorded in the core (its model becomes the conversation's). */
  async choose(reply: Message) {
    const parentId = reply.parentId
    if (!parentId) return
    const all = useChat.getState().messages[reply.conversationId] ?? []
    const parent = all.find((m) => m.id === parentId)
    if (parent?.meta?.competition) chatActions.replaceMessage({ ...parent, meta: { ...parent.meta, competition: { ...parent.meta.competition, chosenId: reply.id } } })
    useChat.setState((s) => ({ branch: { ...s.branch, [parentId]: reply.id } }))
    const result = await bridge().call('competition.choose', { messageId: reply.id })
    if (!result.ok) return useChat.setState({ sendError: result.error })
    chatActions.replaceMessage(result.value.userMessage)
    useChat.setState((s) => ({ conversations: s.conversations.map((c) => (c.id === result.value.conversation.id ? result.value.conversation : c)) }))
  },

  /** Shows one reply of an undecided competition (the tab or column in focus); the next message continues from it. */
  show(reply: Message) {
    if (reply.parentId) useChat.setState((s) => ({ branch: { ...s.branch, [reply.parentId!]: reply.id } }))
  }
}
