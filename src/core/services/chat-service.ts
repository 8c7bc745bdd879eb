import type { ActiveReply, ChatStreamEvent } from '../../shared/bridge/procedures/chat'
import type { Agent, ModelParameters } from '../../shared/data/agent'
import type { Conversation } from '../../shared/data/conversation'
import type { CostBreakdown } from '../../shared/data/cost'
import { messageText, type ContentPart, type Message } from '../../shared/data/message'
import { AppErrorException, type AppError } from '../../shared/errors/app-error'
import type { StreamEvent } from '../../shared/stream/events'
import type { UsageRecord } from '../../shared/stream/usage'
import type { ChatMessage, ChatRequest, ProviderRuntime } from '../runtime/types'
import { countTokens, IMAGE_TOKENS } from '../../shared/tokens/count-tokens'
import type { AgentsRepository } from '../store/repositories/agents'
import type { ConversationsRepository } from '../store/repositories/conversations'
import type { MessagesRepository } from '../store/repositories/messages'
import type { ReplyKnowledgeHook } from '../knowledge/reply-context'

/** What the chat service needs to know about a model (from the catalogue). */
export interface ModelFacts {
  contextWindowTokens?: number
  maxOutput?: number
  vision?: boolean
}

export interface ChatServiceDeps {
  agents: AgentsRepository
  conversations: ConversationsRepository
  messages: MessagesRepository
  /** The runtime of a provider with the user's credentials (key from the keychain, base URL from settings). */
  runtimeFor(providerId: string): Promise<ProviderRuntime>
  modelFacts(providerId: string, modelId: string): Promise<ModelFacts | undefined>
  /** Prices a usage record with the catalogue's pricing of the model; undefined when unpriced. */
  price(providerId: string, modelId: string, usage: UsageRecord): Promise<CostBreakdown | undefined>
  /** Usage log by scene and operation (product.md §8). */
  logUsage?(entry: { scene: string; operation?: string; providerId: string; modelId: string; usage?: UsageRecord; cost?: CostBreakdown }): void
  /** The model that summarises topic titles (scene Summary Topic Title); default: the chat's model. */
  titleModel?(): { providerId: string; modelId: string } | undefined
  /** Cancels a stream of the hub by id. */
  cancelStream(streamId: string): boolean
  idleTimeoutMs?: number
}

export const DEFAULT_AGENT_NAME = 'Just Chat'
const DEFAULT_TITLE = 'New chat'

type SendInput = {
  conversationId?: string
  agentId?: string
  parentId?: string
  text: string
  images?: { dataUrl: string }[]
  /** Ids of uploaded files whose extracted text goes with the message as context. */
  files?: string[]
  providerId?: string
  modelId?: string
}

const noModel = (): AppError => ({
  errorType: 'ModelNotFound',
  status: 404,
  message: 'Pick a model for this conversation first (the model picker above the composer).'
})

/** A rough token estimate of a request (images counted flat): for warnings, not billing. */
export function estimateTokens(messages: readonly ChatMessage[]): number {
  let tokens = 0
  for (const m of messages) {
    tokens += 4
    if (typeof m.content === 'string') tokens += countTokens(m.content)
    else if (Array.isArray(m.content)) for (const p of m.content) tokens += p.type === 'text' ? countTokens(p.text) : IMAGE_TOKENS
  }
  return tokens
}

/**
 * Chat: conversations, replies and their streams. A reply is owned here, not by a window:
 * its events go to the bridge's stream hub (which any window can re-attach to) and into a
 * `streaming` row flushed about once a second.
 */
export class ChatService {
  private readonly active = new Map<string, ActiveReply>()
  /** Extracted text of attached files (set by the attachments start-up step). */
  private fileContext?: (fileIds: readonly string[]) => { name: string; text: string }[]

  constructor(private readonly deps: ChatServiceDeps) {}

  useFileContext(read: (fileIds: readonly string[]) => { name: string; text: string }[]): void {
    this.fileContext = read
  }

  /** Retrieval from attached knowledge bases before each reply (set by the knowledge start-up step). */
  private knowledge?: ReplyKnowledgeHook
  useKnowledge(hook: ReplyKnowledgeHook): void {
    this.knowledge = hook
  }

  /** Attached files as text the model reads before the user's words (a part per file). */
  private fileParts(m: Message): { type: 'text'; text: string }[] {
    if (m.role !== 'user' || !m.files?.length || !this.fileContext) return []
    return this.fileContext(m.files).map((f) => ({ type: 'text', text: `<file name=${JSON.stringify(f.name)}>\n${f.text}\n</file>` }))
  }

  /** The agent a first run goes straight to chatting with. */
  defaultAgent(): Agent {
    const existing = this.deps.agents.list()[0]
    return existing ?? this.deps.agents.create({ name: DEFAULT_AGENT_NAME, avatar: '💬' })
  }

  activeReplies(): ActiveReply[] {
    return [...this.active.values()]
  }

  /** Deletes a message; its replies are re-attached to its parent so no later turn is lost. */
  deleteMessage(messageId: string): number {
    const message = this.deps.messages.require(messageId)
    this.stop(messageId)
    const children = this.deps.messages.list(message.conversationId).filter((m) => m.parentId === messageId)
    for (const child of children) this.deps.messages.reparent(child.id, message.parentId)
    return this.deps.messages.delete(messageId) ? 1 : 0
  }

  stop(messageId: string): boolean {
    const reply = this.active.get(messageId)
    return reply ? this.deps.cancelStream(reply.streamId) : false
  }

  private pickModel(conversation: Conversation, agent: Agent, override?: { providerId?: string; modelId?: string }) {
    const providerId = override?.providerId ?? conversation.providerId ?? agent.providerId
    const modelId = override?.modelId ?? conversation.modelId ?? agent.modelId
    if (!providerId || !modelId) throw new AppErrorException(noModel())
    return { providerId, modelId }
  }

  /** The path from the root to `leafId` (inclusive), following parent ids. */
  private path(conversationId: string, leafId: string | undefined): Message[] {
    if (!leafId) return []
    const all = new Map(this.deps.messages.list(conversationId).map((m) => [m.id, m]))
    const path: Message[] = []
    let cursor = all.get(leafId)
    while (cursor && path.length < 100_000) {
      path.push(cursor)
      cursor = cursor.parentId ? all.get(cursor.parentId) : undefined
    }
    return path.reverse()
  }

  private toChatMessages(agent: Agent, history: readonly Message[]): ChatMessage[] {
    const out: ChatMessage[] = []
    if (agent.systemPrompt.trim()) out.push({ role: 'system', content: agent.systemPrompt })
    for (const m of history) {
      if (m.role !== 'user' && m.role !== 'assistant') continue
      if (m.role === 'assistant' && m.status === 'error' && !messageText(m.content)) continue
      const images = m.content.filter((p): p is Extract<ContentPart, { type: 'image_url' }> => p.type === 'image_url')
      const text = messageText(m.content)
      const files = this.fileParts(m)
      if ((images.length > 0 || files.length > 0) && m.role === 'user') {
        out.push({
          role: 'user',
          content: [...files, ...(text ? [{ type: 'text' as const, text }] : []), ...images.map((p) => ({ type: 'image_url' as const, image_url: { url: p.imageUrl.url } }))]
        })
      } else {
        const msg: ChatMessage = { role: m.role, content: text }
        if (m.role === 'assistant' && m.toolCalls?.length) msg.tool_calls = m.toolCalls
        if (m.role === 'assistant' && m.reasoning?.signature) {
          // Signed thinking goes back verbatim so the provider can continue its reasoning.
          msg.reasoning = { content: m.reasoning.text, signature: m.reasoning.signature }
        }
        out.push(msg)
      }
    }
    return out
  }

  private request(modelId: string, messages: ChatMessage[], params: ModelParameters): ChatRequest {
    const request: ChatRequest = { model: modelId, messages, stream: true }
    if (params.temperature !== undefined) request.temperature = params.temperature
    if (params.topP !== undefined) request.top_p = params.topP
    if (params.maxOutputTokens !== undefined) request.max_tokens = params.maxOutputTokens
    if (params.presencePenalty !== undefined) request.presence_penalty = params.presencePenalty
    if (params.frequencyPenalty !== undefined) request.frequency_penalty = params.frequencyPenalty
    if (params.reasoningEffort) request.reasoning_effort = params.reasoningEffort as ChatRequest['reasoning_effort']
    if (params.thinkingBudget !== undefined) request.thinking = { type: 'enabled', budget_tokens: params.thinkingBudget }
    const verbosity = params.extra?.['textVerbosity']
    if (verbosity === 'low' || verbosity === 'medium' || verbosity === 'high') request.verbosity = verbosity
    return request
  }

  async *send(input: SendInput, ctx: { signal: AbortSignal; streamId?: string }): AsyncGenerator<ChatStreamEvent, Message> {
    const agent = input.agentId ? this.deps.agents.require(input.agentId) : this.defaultAgent()
    const conversation = input.conversationId
      ? this.deps.conversations.require(input.conversationId)
      : this.deps.conversations.create({
          agentId: agent.id,
          title: DEFAULT_TITLE,
          ...(input.providerId && input.modelId ? { providerId: input.providerId, modelId: input.modelId } : {})
        })
    const model = this.pickModel(conversation, agent, input)
    if (input.providerId && input.modelId && (conversation.providerId !== input.providerId || conversation.modelId !== input.modelId)) {
      this.deps.conversations.update(conversation.id, { providerId: input.providerId, modelId: input.modelId })
    }
    const parentId = input.parentId ?? this.deps.messages.page(conversation.id, { limit: 1 }).messages[0]?.id
    const content: ContentPart[] = []
    if (input.text) content.push({ type: 'text', text: input.text })
    for (const img of input.images ?? []) content.push({ type: 'image_url', imageUrl: { url: img.dataUrl } })
    const files = input.files?.length ? { files: input.files } : {}
    const userMessage = this.deps.messages.create({ conversationId: conversation.id, role: 'user', content, ...files, ...(parentId ? { parentId } : {}) })
    const first = !parentId
    return yield* this.reply(conversation, agent, model, userMessage, ctx, { userMessage, summariseTitle: first })
  }

  async *regenerate(input: { messageId: string; deleteOld?: boolean; providerId?: string; modelId?: string }, ctx: { signal: AbortSignal; streamId?: string }) {
    const old = this.deps.messages.require(input.messageId)
    if (old.role !== 'assistant' || !old.parentId) throw new AppErrorException({ errorType: 'ValidationError', status: 400, message: 'Only a reply can be regenerated.' })
    const conversation = this.deps.conversations.require(old.conversationId)
    const agent = this.deps.agents.require(conversation.agentId)
    const model = this.pickModel(conversation, agent, input.providerId && input.modelId ? input : { providerId: old.providerId, modelId: old.modelId })
    if (input.deleteOld) this.deps.messages.delete(old.id)
    const parent = this.deps.messages.require(old.parentId)
    return yield* this.reply(conversation, agent, model, parent, ctx, { operation: input.deleteOld ? 'Delete And Regenerate Message' : 'Regenerate Message' })
  }

  async *editAndResend(input: { messageId: string; text: string }, ctx: { signal: AbortSignal; streamId?: string }) {
    const old = this.deps.messages.require(input.messageId)
    if (old.role !== 'user') throw new AppErrorException({ errorType: 'ValidationError', status: 400, message: 'Only your own messages can be edited and re-sent.' })
    const conversation = this.deps.conversations.require(old.conversationId)
    const agent = this.deps.agents.require(conversation.agentId)
    const model = this.pickModel(conversation, agent)
    const images = old.content.filter((p) => p.type !== 'text')
    const userMessage = this.deps.messages.create({
      conversationId: conversation.id,
      role: 'user',
      content: [{ type: 'text', text: input.text }, ...images],
      ...(old.files?.length ? { files: old.files } : {}),
      ...(old.parentId ? { parentId: old.parentId } : {})
    })
    return yield* this.reply(conversation, agent, model, userMessage, ctx, { userMessage, operation: 'Modify Message' })
  }

  async *continueReply(input: { messageId: string }, ctx: { signal: AbortSignal; streamId?: string }) {
    const partial = this.deps.messages.require(input.messageId)
    if (partial.role !== 'assistant') throw new AppErrorException({ errorType: 'ValidationError', status: 400, message: 'Only a reply can be continued.' })
    const conversation = this.deps.conversations.require(partial.conversationId)
    const agent = this.deps.agents.require(conversation.agentId)
    const model = this.pickModel(conversation, agent, { providerId: partial.providerId, modelId: partial.modelId })
    return yield* this.reply(conversation, agent, model, partial, ctx, {
      extraInstruction: 'Continue your previous answer exactly where it stopped. Do not repeat what you already wrote.'
    })
  }

  /** Streams one assistant reply to the message `parent` (the end of the history sent). */
  private async *reply(
    conversation: Conversation,
    agent: Agent,
    model: { providerId: string; modelId: string },
    parent: Message,
    ctx: { signal: AbortSignal; streamId?: string },
    options: { userMessage?: Message; summariseTitle?: boolean; operation?: string; extraInstruction?: string }
  ): AsyncGenerator<ChatStreamEvent, Message> {
    const history = this.path(conversation.id, parent.id)
    const messages = this.toChatMessages(agent, history)
    if (options.extraInstruction) messages.push({ role: 'user', content: options.extraInstruction })
    const params = { ...agent.parameters, ...conversation.parameters }
    const writer = this.deps.messages.beginStreaming({ conversationId: conversation.id, parentId: parent.id, providerId: model.providerId, modelId: model.modelId })
    if (ctx.streamId) this.active.set(writer.id, { streamId: ctx.streamId, conversationId: conversation.id, messageId: writer.id })
    yield { type: 'reply', data: { conversation: this.deps.conversations.require(conversation.id), userMessage: options.userMessage, assistantMessage: writer.message } }

    let stopReason: string | undefined
    let error: AppError | undefined
    let usage: UsageRecord | undefined
    try {
      const facts = await this.deps.modelFacts(model.providerId, model.modelId)
      const question = [...history].reverse().find((m) => m.role === 'user')
      if (this.knowledge && question) {
        // What is left of the window after the conversation and the reply goes to retrieved text.
        const budget = facts?.contextWindowTokens ? facts.contextWindowTokens - estimateTokens(messages) - (facts.maxOutput ?? 4096) : Number.MAX_SAFE_INTEGER
        const found = await this.knowledge({ agentId: agent.id, conversationId: conversation.id, question: messageText(question.content), replyId: writer.id, budgetTokens: budget, signal: ctx.signal })
        if (found) messages.splice(messages[0]?.role === 'system' ? 1 : 0, 0, { role: 'system', content: found.instructions })
      }
      const estimate = estimateTokens(messages)
      if (facts?.contextWindowTokens && estimate > facts.contextWindowTokens) {
        throw new AppErrorException({
          errorType: 'ExceededContextWindow',
          status: 400,
          message: `This conversation is about ${estimate.toLocaleString('en')} tokens; ${model.modelId} reads at most ${facts.contextWindowTokens.toLocaleString('en')}.`
        })
      }
      const runtime = await this.deps.runtimeFor(model.providerId)
      if (!runtime.chat) throw new AppErrorException({ errorType: 'ProviderBizError', status: 471, message: `${model.providerId} does not offer chat.` })
      const events = runtime.chat(this.request(model.modelId, messages, params), { signal: ctx.signal, idleTimeoutMs: this.deps.idleTimeoutMs })
      for await (const event of events as AsyncIterable<StreamEvent>) {
        // A stop the user asked for is not an error: the reply is kept as interrupted.
        if (event.type === 'error' && ctx.signal.aborted) continue
        writer.apply(event)
        if (event.type === 'usage') usage = event.data
        if (event.type === 'stop') stopReason = event.data
        if (event.type === 'error') error = event.data
        yield event
      }
    } catch (thrown) {
      error =
        thrown instanceof AppErrorException
          ? thrown.error
          : { errorType: 'AgentRuntimeError', status: 470, message: thrown instanceof Error ? thrown.message : String(thrown) }
      yield { type: 'error', data: error }
    }
    const cost = usage ? await this.deps.price(model.providerId, model.modelId, usage).catch(() => undefined) : undefined
    if (cost) yield { type: 'cost', data: cost }
    // Stopped by the user, or closed without the provider's end marker: the partial text stays.
    const interrupted = ctx.signal.aborted || stopReason === 'cancelled' || stopReason === 'interrupted'
    const status = interrupted ? 'interrupted' : error ? 'error' : 'complete'
    const final = writer.finish(status, { ...(cost ? { cost } : {}), ...(error && !ctx.signal.aborted ? { error } : {}) })
    this.active.delete(writer.id)
    this.deps.logUsage?.({ scene: 'Conversation', ...(options.operation ? { operation: options.operation } : {}), providerId: model.providerId, modelId: model.modelId, usage, cost })

    if (options.summariseTitle && status === 'complete') {
      const title = await this.summariseTitle(history, final, model).catch(() => undefined)
      if (title) {
        this.deps.conversations.update(conversation.id, { title })
        yield { type: 'title', data: { conversationId: conversation.id, title } }
      }
    }
    return final
  }

  /** Scene Summary Topic Title: a short title from the first exchange, with a small model. */
  private async summariseTitle(history: Message[], reply: Message, fallback: { providerId: string; modelId: string }): Promise<string | undefined> {
    const model = this.deps.titleModel?.() ?? fallback
    const runtime = await this.deps.runtimeFor(model.providerId)
    if (!runtime.chat) return undefined
    const exchange = [...history, reply].map((m) => `${m.role}: ${messageText(m.content).slice(0, 2000)}`).join('\n')
    const request: ChatRequest = {
      model: model.modelId,
      stream: true,
      max_tokens: 32,
      messages: [
        { role: 'system', content: 'You write a title of at most 8 words for a conversation, in its language. Reply with the title only, no quotes.' },
        { role: 'user', content: exchange }
      ]
    }
    let text = ''
    let usage: UsageRecord | undefined
    for await (const event of runtime.chat(request, { idleTimeoutMs: 20_000 })) {
      if (event.type === 'text') text += event.data
      if (event.type === 'usage') usage = event.data
      if (event.type === 'error') return undefined
    }
    const cost = usage ? await this.deps.price(model.providerId, model.modelId, usage).catch(() => undefined) : undefined
    this.deps.logUsage?.({ scene: 'Summary Topic Title', providerId: model.providerId, modelId: model.modelId, usage, cost })
    const title = text.replace(/<think>[\s\S]*?<\/think>/g, '').replace(/^["'“”]+|["'“”.。]+$/g, '').trim().split('\n')[0]?.slice(0, 80)
    return title || undefined
  }
}
