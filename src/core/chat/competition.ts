import type { ChatStreamEvent } from '../../shared/bridge/procedures/chat'
import type { CompetitionStarted, CompetitionStartInput } from '../../shared/bridge/procedures/competition'
import { COMPETITION_MODE, sameModel, type CompetitionMeta, type CompetitionModel } from '../../shared/chat/competition'
import type { Conversation } from '../../shared/data/conversation'
import type { Message } from '../../shared/data/message'
import { AppErrorException } from '../../shared/errors/app-error'
import type { AgentsRepository } from '../store/repositories/agents'
import type { ConversationsRepository } from '../store/repositories/conversations'
import type { MessagesRepository } from '../store/repositories/messages'
import type { ChatService } from './chat-service'

export interface CompetitionDeps {
  chat: ChatService
  agents: AgentsRepository
  conversations: ConversationsRepository
  messages: MessagesRepository
  /**
   * Starts a reply as a stream of the core's hub (the same hub `chat.send` runs in), so each
   * competing reply is listed by `tasks.active`, re-followed after a reload and stopped on its own.
   */
  startStream(run: (signal: AbortSignal, streamId: string) => AsyncIterator<ChatStreamEvent, Message>): string
}

const invalid = (message: string) => new AppErrorException({ errorType: 'ValidationError', status: 400, message })

/**
 * Chat Competition: one user message, answered by 2–4 models at once. Each reply is
 * an ordinary assistant message under that user message (so the replies are sibling branches),
 * streamed as its own hub stream by the chat service's one reply path, logged as Chat Competition.
 */
export class Competition {
  constructor(private readonly deps: CompetitionDeps) {}

  /** Sends once: stores the user message, then starts one reply per model; returns at once. */
  start(input: CompetitionStartInput): CompetitionStarted {
    const models = distinct(input.models)
    if (models.length < 2) throw invalid('A competition needs at least two different models.')
    const { models: _models, ...send } = input
    // The conversation keeps its own model; a new one (or one without a model) starts with the first competitor's.
    const existing = input.conversationId ? this.deps.conversations.require(input.conversationId) : undefined
    const agent = existing ? this.deps.agents.get(existing.agentId) : input.agentId ? this.deps.agents.get(input.agentId) : undefined
    const hasModel = Boolean((existing?.providerId && existing.modelId) || (existing && agent?.providerId && agent.modelId))
    const turn = this.deps.chat.beginTurn({ ...send, ...(hasModel ? {} : models[0]!) })
    const meta: CompetitionMeta = { models }
    const userMessage = this.deps.messages.update(turn.userMessage.id, { meta: { ...turn.userMessage.meta, competition: meta } })
    const replies = models.map((model) => this.startReply(userMessage, model, { userMessage }))
    return { conversation: this.deps.conversations.require(turn.conversation.id), userMessage, replies }
  }

  /**
   * Regenerates one column (`messageId`: a new reply with that reply's model, a sibling of it) or
   * all of them (`userMessageId`: one new reply per model asked).
   */
  regenerate(input: { messageId?: string; userMessageId?: string }): CompetitionStarted {
    if (Boolean(input.messageId) === Boolean(input.userMessageId)) throw invalid('Give either the reply to regenerate (messageId) or the competition to run again (userMessageId).')
    const reply = input.messageId ? this.deps.messages.require(input.messageId) : undefined
    if (reply && (reply.role !== 'assistant' || !reply.parentId)) throw invalid('Only a reply can be regenerated.')
    const userMessage = this.deps.messages.require(reply?.parentId ?? input.userMessageId!)
    const meta = userMessage.meta?.competition
    if (!meta) throw invalid('This message was not sent to a competition.')
    const models = reply ? [{ providerId: reply.providerId ?? '', modelId: reply.modelId ?? '' }] : meta.models
    if (models.some((m) => !m.providerId || !m.modelId)) throw invalid('This reply does not say which model wrote it.')
    // Running again reopens the choice: the new replies are to be compared.
    const reopened = meta.chosenId ? this.deps.messages.update(userMessage.id, { meta: { ...userMessage.meta, competition: { models: meta.models } } }) : userMessage
    const replies = models.map((model) => this.startReply(reopened, model, { operation: 'Regenerate Message' }))
    return { conversation: this.deps.conversations.require(userMessage.conversationId), userMessage: reopened, replies }
  }

  /** The user picked the reply to continue with: recorded on the turn, and its model becomes the conversation's. */
  choose(input: { messageId: string }): { userMessage: Message; conversation: Conversation } {
    const reply = this.deps.messages.require(input.messageId)
    const userMessage = reply.parentId ? this.deps.messages.require(reply.parentId) : undefined
    const meta = userMessage?.meta?.competition
    if (!userMessage || !meta || reply.role !== 'assistant') throw invalid('This reply is not part of a competition.')
    const updated = this.deps.messages.update(userMessage.id, { meta: { ...userMessage.meta, competition: { ...meta, chosenId: reply.id } } })
    let conversation = this.deps.conversations.require(reply.conversationId)
    if (reply.providerId && reply.modelId && (conversation.providerId !== reply.providerId || conversation.modelId !== reply.modelId))
      conversation = this.deps.conversations.update(conversation.id, { providerId: reply.providerId, modelId: reply.modelId })
    return { userMessage: updated, conversation }
  }

  private startReply(userMessage: Message, model: CompetitionModel, extra: { userMessage?: Message; operation?: string }) {
    const streamId = this.deps.startStream((signal, streamId) =>
      this.deps.chat.replyWith({ parentId: userMessage.id, ...model, mode: COMPETITION_MODE, ...extra }, { signal, streamId })
    )
    return { streamId, ...model }
  }
}

function distinct(models: readonly CompetitionModel[]): CompetitionModel[] {
  const out: CompetitionModel[] = []
  for (const m of models) if (!out.some((o) => sameModel(o, m))) out.push({ providerId: m.providerId, modelId: m.modelId })
  return out
}
