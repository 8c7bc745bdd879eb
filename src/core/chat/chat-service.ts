import type { ChatStreamEvent } from '../../shared/bridge/procedures/chat'
import { abortedByShutdown, type TaskRegistry } from '../bridge/stream-hub'
import { DEFAULT_AGENT_NAME, DEFAULT_CONVERSATION_TITLE } from '../../shared/chat/default-names'
import type { Agent, ModelParameters } from '../../shared/data/agent'
import type { Conversation } from '../../shared/data/conversation'
import type { CostBreakdown } from '../../shared/data/cost'
import { messageText, type ContentPart, type Message, type MessagePatch } from '../../shared/data/message'
import type { ChosenOptions } from '../../shared/chat/message-meta'
import { AppErrorException, type AppError } from '../../shared/errors/app-error'
import type { StreamEvent } from '../../shared/stream/events'
import type { ProviderRuntime } from '../runtime/types'
import { countTokens } from '../../shared/tokens/count-tokens'
import { messageTokens, pathTo, planHistory, type HistoryPlan } from '../../shared/chat/history-window'
import type { ModelControlInput } from '../../shared/chat/model-controls'
import { buildChatRequest, chooseSearchRoute, type SearchRoute } from './request-options'
import { toChatMessages } from './to-chat-messages'
import { withArtifactInstruction } from '../../shared/artifacts/artifact-kinds'
import { sceneDefaultModel } from './scene-default-model'
import { cleanTitle, fallbackTitle } from './title-text'
import { runScene, scenePrompts, type ModelRef, type SceneName } from './scenes'
import type { ChatMessage, ChatTool } from '../runtime/types'
import type { GroundingCitation } from '../../shared/stream/events'
import type { ToolResult } from '../../shared/data/message'
import type { ChatToolsHook } from '../tools/chat-tools'
import type { MessageToolChoice } from '../../shared/tools/types'
import type { ToolStepOutcome } from '../tools/tool-loop'
import { DEFAULT_AGENT, type AgentsRepository } from '../store/repositories/agents'
import type { ConversationsRepository } from '../store/repositories/conversations'
import type { MessagesRepository } from '../store/repositories/messages'
import type { ReplyKnowledge, ReplyKnowledgeHook } from '../knowledge/reply-context'
import { logger } from '../log/logger'
import type { ModelCaller } from '../caller/model-caller'
import type { UsageMode, UsageOperation } from '../../shared/data/usage-log'
import type { ModelFacts } from '../providers/model-facts'
import { joinsAsOneText } from '../../shared/chat/continuation'

/** Decided once per user turn and shared by the tool loop's model calls. */
interface TurnPlan {
  search: boolean
  searchRoute?: SearchRoute
  knowledge?: Promise<ReplyKnowledge | undefined>
}

export interface ChatServiceDeps {
  agents: AgentsRepository
  conversations: ConversationsRepository
  messages: MessagesRepository
  /** The one model caller: every model call of a reply or a scene runs, is priced and logged through it. */
  caller: ModelCaller
  /** The runtime of a provider with the user's credentials (key from the keychain, base URL from settings). */
  runtimeFor(providerId: string): Promise<ProviderRuntime>
  modelFacts(providerId: string, modelId: string): Promise<ModelFacts | undefined>
  /** Search limits from Settings: xAI results per search (1..30), Anthropic's max searches per reply. */
  searchLimits?(): { maxResults?: number; maxUses?: number }
  /** A local model's context length chosen by the user (Ollama num_ctx), per provider and model. */
  contextLength?(providerId: string, modelId: string): number | undefined
  /** The hub's task registry: a running reply is a `chat` task (listed, re-followed, stopped by message id). */
  tasks: TaskRegistry
  idleTimeoutMs?: number
  /** Stores an image a reply produced (base64_image) as a file, offered in the gallery too. */
  saveImage(input: ChatImageInput): Promise<{ fileId: string; mimeType: string; width?: number; height?: number }>
  /** The agent's tool set and the step runner. */
  tools: ChatToolsHook
  /** Extracted text of attached files. */
  fileContext(fileIds: readonly string[]): { name: string; text: string }[]
  /** Retrieval from attached knowledge bases before each reply. */
  knowledge: ReplyKnowledgeHook
  /** Knowledge bases chosen for a new chat before its first message: checked first, attached once it exists. */
  knowledgeAttach: ConversationKnowledgeAttach
}

export interface ChatImageInput {
  base64: string
  mimeType: string
  prompt: string
  providerId: string
  modelId: string
  conversationId: string
  messageId: string
}

// Shared with the page, which shows these stored defaults in the user's language.
export { DEFAULT_AGENT_NAME }
/** The default agent's id on a new install (the shape of any id: 16 of [0-9a-z]). */
export const DEFAULT_AGENT_ID = DEFAULT_AGENT.id
const DEFAULT_TITLE = DEFAULT_CONVERSATION_TITLE
/** A conversation not yet named: the chat's placeholder, or none (created through data.conversations). */
const untitled = (title: string) => !title.trim() || title === DEFAULT_TITLE

type SendInput = {
  /** The composer's tools choice for this message only. */
  tools?: MessageToolChoice
  conversationId?: string
  agentId?: string
  parentId?: string
  text: string
  images?: { dataUrl: string }[]
  /** Ids of uploaded files whose extracted text goes with the message as context. */
  files?: string[]
  providerId?: string
  modelId?: string
  /** Controls chosen in the composer before the conversation existed. */
  parameters?: ModelParameters
  /** Knowledge bases attached to the conversation this turn creates. */
  knowledgeBaseIds?: string[]
}

/** Attaching knowledge bases to a conversation (set by the knowledge start-up step). */
export interface ConversationKnowledgeAttach {
  /** Throws, naming it, when a base does not exist. */
  check(kbIds: readonly string[]): void
  attach(conversationId: string, kbIds: readonly string[]): void
}

/** How long the rewrite of a question for knowledge retrieval may take before the question is searched as asked. */
export const QUERY_REWRITE_TIMEOUT_MS = 5000
/** Earlier messages the rewrite reads to resolve "it" and "that one". */
const QUERY_REWRITE_CONTEXT = 6

const noModel = (): AppError => ({
  errorType: 'ModelNotFound',
  status: 404,
  message: 'Pick a model for this conversation first (the model picker above the composer).'
})

/**
 * Chat: conversations, replies and their streams. A reply is owned here, not by a window:
 * its events go to the bridge's stream hub (which any window can re-attach to) and into a
 * `streaming` row flushed about once a second.
 */
export class ChatService {
  constructor(private readonly deps: ChatServiceDeps) {}

  /** Attached files as text the model reads before the user's words (a part per file). */
  private fileParts(m: Message): { type: 'text'; text: string }[] {
    if (m.role !== 'user' || !m.files?.length) return []
    return this.deps.fileContext(m.files).map((f) => ({ type: 'text', text: `<file name=${JSON.stringify(f.name)}>\n${f.text}\n</file>` }))
  }

  /** The agent a first run goes straight to chatting with. */
  defaultAgent(): Agent {
    const existing = this.deps.agents.list()[0]
    return existing ?? this.deps.agents.create({ ...DEFAULT_AGENT })
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
    const reply = this.deps.tasks.find('chat', (m) => m.messageId === messageId)
    return reply ? this.deps.tasks.cancel(reply.id) : false
  }

  private pickModel(conversation: Conversation, agent: Agent, override?: { providerId?: string; modelId?: string }) {
    const providerId = override?.providerId ?? conversation.providerId ?? agent.providerId
    const modelId = override?.modelId ?? conversation.modelId ?? agent.modelId
    if (!providerId || !modelId) throw new AppErrorException(noModel())
    return { providerId, modelId }
  }

  /** The path from the root to `leafId` (inclusive), following parent ids. */
  private path(conversationId: string, leafId: string | undefined): Message[] {
    return leafId ? pathTo(this.deps.messages.list(conversationId), leafId) : []
  }

  /** Tokens of one stored message as it will be sent: text, images, attached files' text. */
  private readonly tokensOf = (m: Message): number => {
    let tokens = messageTokens(m)
    if (m.role === 'user' && m.files?.length) for (const part of this.fileParts(m)) tokens += countTokens(part.text)
    return tokens
  }

  /** The model facts as the chat controls read them. */
  private controlInput(model: { providerId: string; modelId: string }, facts: ModelFacts | undefined): ModelControlInput {
    return {
      providerId: model.providerId,
      id: model.modelId,
      ...(facts?.extendParams ? { extendParams: facts.extendParams } : {}),
      abilities: { ...(facts?.search ? { search: true } : {}), ...(facts?.reasoning ? { reasoning: true } : {}) },
      ...(facts?.searchImpl ? { searchImpl: facts.searchImpl } : {}),
      ...(facts?.maxOutput ? { maxOutput: facts.maxOutput } : {})
    }
  }

  async *send(input: SendInput, ctx: { signal: AbortSignal; streamId?: string }): AsyncGenerator<ChatStreamEvent, Message> {
    const { conversation, agent, model, userMessage } = this.beginTurn(input)
    return yield* this.reply(conversation, agent, model, userMessage, ctx, { userMessage, ...(input.tools ? { tools: input.tools } : {}) })
  }

  /**
   * A user's turn: the conversation (created if needed), its model and the stored user message.
   * `send` answers it with one reply; a Chat Competition (chat/competition.ts) with several.
   */
  beginTurn(input: SendInput): { conversation: Conversation; agent: Agent; model: { providerId: string; modelId: string }; userMessage: Message } {
    const agent = input.agentId ? this.deps.agents.require(input.agentId) : this.defaultAgent()
    // Checked before anything is made: a refused base leaves no empty conversation behind.
    const kbIds = !input.conversationId && input.knowledgeBaseIds?.length ? input.knowledgeBaseIds : undefined
    if (kbIds) this.deps.knowledgeAttach.check(kbIds)
    const conversation = input.conversationId
      ? this.deps.conversations.require(input.conversationId)
      : this.deps.conversations.create({
          agentId: agent.id,
          title: DEFAULT_TITLE,
          ...(input.providerId && input.modelId ? { providerId: input.providerId, modelId: input.modelId } : {}),
          ...(input.parameters ? { parameters: input.parameters } : {})
        })
    if (kbIds) this.deps.knowledgeAttach.attach(conversation.id, kbIds)
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
    return { conversation: this.deps.conversations.require(conversation.id), agent, model, userMessage }
  }

  /**
   * One reply to the user message `parentId` with the model given, logged under `mode`
   * (Chat Competition). Each competing reply is its own stream, so each stops on its own.
   */
  async *replyWith(
    input: { parentId: string; providerId: string; modelId: string; mode?: string; operation?: string; userMessage?: Message },
    ctx: { signal: AbortSignal; streamId?: string }
  ): AsyncGenerator<ChatStreamEvent, Message> {
    const parent = this.deps.messages.require(input.parentId)
    const conversation = this.deps.conversations.require(parent.conversationId)
    const agent = this.deps.agents.require(conversation.agentId)
    const model = { providerId: input.providerId, modelId: input.modelId }
    return yield* this.reply(conversation, agent, model, parent, ctx, {
      ...(input.userMessage ? { userMessage: input.userMessage } : {}),
      ...(input.operation ? { operation: input.operation } : {}),
      ...(input.mode ? { mode: input.mode } : {})
    })
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

  /**
   * Streams one assistant reply to the message `parent` (the end of the history sent). With
   * tools a reply is a chain: each model call that asks for tools is one assistant
   * message holding its calls and their results; the next call answers it as its child, so
   * reload, regenerate and branches see the same tree.
   */
  private async *reply(
    conversation: Conversation,
    agent: Agent,
    model: { providerId: string; modelId: string },
    parent: Message,
    ctx: { signal: AbortSignal; streamId?: string; autoApprove?: boolean },
    options: { userMessage?: Message; operation?: string; extraInstruction?: string; mode?: string; tools?: MessageToolChoice }
  ): AsyncGenerator<ChatStreamEvent, Message> {
    const params = { ...agent.parameters, ...conversation.parameters }
    // Decided once per user turn, not per tool-loop step: search (and where it goes), retrieval.
    const turn = await this.turnPlan(conversation, model, parent, params, ctx.signal)
    const tools = await this.deps.tools.prepare(agent.id, { search: turn.searchRoute === 'app-tool', ...(options.tools ? { only: options.tools } : {}) }).catch(() => undefined)
    let at = parent
    let final: Message | undefined
    const citations: GroundingCitation[] = []
    let lastCalls = 0
    // The tool loop: each step is one model call under the previous one; a step whose
    // calls ran is stored with its results, so the next call reads them from the history.
    for (let step = 0; ; step++) {
      // The last call the step limit allows goes without tools, so the model has to answer.
      const offered = tools && step < tools.stepLimit - 1 ? tools.offered.map((t) => t.chatTool) : undefined
      // A competing reply is logged as Chat Competition even when it calls tools.
      const mode = options.mode ?? (tools ? (lastCalls > 1 ? 'Tools Calling' : 'Tool Calling') : undefined)
      const call = yield* this.modelCall(conversation, agent, model, at, params, ctx, {
        ...(step === 0 && options.userMessage ? { userMessage: options.userMessage } : {}),
        ...(step === 0 && options.operation ? { operation: options.operation } : {}),
        ...(options.extraInstruction && step === 0 ? { extraInstruction: options.extraInstruction } : {}),
        ...(offered ? { tools: offered } : {}),
        ...(mode ? { mode } : {}),
        ...(citations.length ? { citations } : {}),
        turn
      })
      final = call.message
      const calls = final.toolCalls ?? []
      if (!tools || call.status !== 'complete' || calls.length === 0 || ctx.signal.aborted) break
      lastCalls = calls.length
      const messageId = final.id
      const partial: ToolResult[] = []
      // While its tools run the step is still the reply's live message: Stop and re-attach find it.
      if (ctx.streamId) this.deps.tasks.describe(ctx.streamId, 'chat', { conversationId: conversation.id, messageId })
      const outcome: ToolStepOutcome = yield* this.deps.tools.step(tools.offered, calls, {
        messageId,
        signal: ctx.signal,
        model,
        conversationId: conversation.id,
        ...(ctx.autoApprove ? { autoApprove: true } : {}),
        // Each result is written as it arrives: a crash mid-step keeps the finished ones.
        onResult: (result) => {
          partial.push(result)
          this.deps.messages.update(messageId, { toolResults: [...partial] })
        }
      })
      citations.push(...outcome.citations)
      final = this.deps.messages.update(messageId, { toolResults: outcome.results })
      yield { type: 'tool_step', data: { messageId, toolResults: outcome.results } }
      at = final
      if (ctx.signal.aborted) break
    }
    return final!
  }

  /** One model call: a streaming assistant message under `parent`, finished with its status. */
  private async *modelCall(
    conversation: Conversation,
    agent: Agent,
    model: { providerId: string; modelId: string },
    parent: Message,
    params: ModelParameters,
    ctx: { signal: AbortSignal; streamId?: string },
    options: { userMessage?: Message; operation?: string; extraInstruction?: string; tools?: ChatTool[]; mode?: string; citations?: GroundingCitation[]; turn?: TurnPlan }
  ): AsyncGenerator<ChatStreamEvent, { message: Message; status: Message['status'] }> {
    const history = this.path(conversation.id, parent.id)
    const writer = this.deps.messages.beginStreaming({ conversationId: conversation.id, parentId: parent.id, providerId: model.providerId, modelId: model.modelId })
    if (ctx.streamId) this.deps.tasks.describe(ctx.streamId, 'chat', { conversationId: conversation.id, messageId: writer.id })
    yield { type: 'reply', data: { conversation: this.deps.conversations.require(conversation.id), userMessage: options.userMessage, assistantMessage: writer.message } }
    if (options.citations?.length) {
      // What the tools found (web search) is cited by the answer that reads it.
      const grounding = { type: 'grounding' as const, data: { citations: [...options.citations] } }
      writer.apply(grounding)
      yield grounding
    }

    let stopReason: string | undefined
    let error: AppError | undefined
    let cost: CostBreakdown | undefined
    let chosen: ChosenOptions | undefined
    const imageParts: ContentPart[] = []
    let reasoningFrom: number | undefined
    let reasoningMs: number | undefined
    /** The search query knowledge retrieval used, when it is a rewrite of the question. */
    let knowledgeQuery: string | undefined
    try {
      const facts = await this.deps.modelFacts(model.providerId, model.modelId)
      const plan = yield* this.historyFor(conversation, agent, model, history, params, facts, options.extraInstruction, ctx.signal)
      const messages: ChatMessage[] = toChatMessages(withArtifactInstruction(agent.systemPrompt, params.artifacts), plan.messages, { ...(plan.summary ? { summary: plan.summary.text } : {}), fileParts: (m) => this.fileParts(m), vision: facts?.vision === true })
      if (options.extraInstruction) messages.push({ role: 'user', content: options.extraInstruction })
      const question = [...history].reverse().find((m) => m.role === 'user')
      if (question) {
        // What is left of the window after the history plan and the reply goes to retrieved text.
        const budget = facts?.contextWindowTokens ? facts.contextWindowTokens - plan.tokens - (facts.maxOutput ?? 4096) : Number.MAX_SAFE_INTEGER
        // Retrieved once per user turn: later steps of the tool loop reuse it and cite the same sources.
        const knowledge = this.deps.knowledge
        const found = options.turn?.knowledge
          ? await options.turn.knowledge
          : await knowledge({
              agentId: agent.id,
              conversationId: conversation.id,
              question: messageText(question.content),
              budgetTokens: budget,
              signal: ctx.signal,
              ...this.queryRewriter(conversation.id, history, question)
            })
        if (options.turn && !options.turn.knowledge) options.turn.knowledge = Promise.resolve(found)
        if (found) {
          // The reply's sources travel as web citations do: a grounding event, stored with the message
          // (every step of a tool loop cites the same numbers).
          const grounding = { type: 'grounding' as const, data: { knowledge: found.sources } }
          writer.apply(grounding)
          yield grounding
        }
        if (found) messages.splice(messages[0]?.role === 'system' ? 1 : 0, 0, { role: 'system', content: found.instructions })
        if (found && found.query !== messageText(question.content)) knowledgeQuery = found.query
      }
      const turn = options.turn ?? (await this.turnPlan(conversation, model, parent, params, ctx.signal))
      const built = buildChatRequest(this.controlInput(model, facts), messages, params, { search: turn.search, ...(turn.searchRoute ? { searchRoute: turn.searchRoute } : {}) })
      const request = built.request
      if (options.tools?.length) request.tools = options.tools
      if (request.enabledSearch) {
        const limits = this.deps.searchLimits?.() ?? {}
        if (limits.maxResults) request.searchMaxResults = limits.maxResults
        if (limits.maxUses) request.searchMaxUses = limits.maxUses
      }
      const contextLength = this.deps.contextLength?.(model.providerId, model.modelId)
      if (contextLength) request.contextLength = contextLength
      chosen = built.chosen
      if (Object.keys(chosen).length > 0) yield { type: 'options', data: chosen }
      const { model: _model, messages: _messages, ...requestParams } = request
      const events = this.deps.caller.run({
        target: model,
        scene: 'Conversation',
        messages: request.messages,
        params: requestParams,
        ...(options.operation ? { operation: options.operation as UsageOperation } : {}),
        ...(options.mode ? { mode: options.mode as UsageMode } : {}),
        // Every reply names its conversation and message: per-conversation and per-agent spend add them up.
        conversationId: conversation.id,
        messageId: writer.id,
        signal: ctx.signal,
        call: { ...(this.deps.idleTimeoutMs !== undefined ? { idleTimeoutMs: this.deps.idleTimeoutMs } : {}) }
      })
      let next = await events.next()
      for (; !next.done; next = await events.next()) {
        const event = next.value as StreamEvent
        // A stop the user asked for is not an error: the reply is kept as interrupted.
        if (event.type === 'error' && ctx.signal.aborted) continue
        writer.apply(event)
        // An image in the reply is kept as a file (the writer keeps no images).
        if (event.type === 'base64_image') imageParts.push(await this.storeImage(event.data, { conversation, model, parent, messageId: writer.id }))
        if (event.type === 'stop') stopReason = event.data
        if (event.type === 'error') error = event.data
        // How long it reasoned (first reasoning to first answer) is kept with the reply.
        if (event.type === 'reasoning') reasoningFrom ??= Date.now()
        else if (reasoningFrom !== undefined && reasoningMs === undefined && (event.type === 'text' || event.type === 'tool_calls')) reasoningMs = Date.now() - reasoningFrom
        yield event
      }
      cost = next.value.cost
    } catch (thrown) {
      error =
        thrown instanceof AppErrorException
          ? thrown.error
          : { errorType: 'AgentRuntimeError', status: 470, message: thrown instanceof Error ? thrown.message : String(thrown) }
      yield { type: 'error', data: error }
    }
    if (cost) yield { type: 'cost', data: cost }
    // Stopped by the user, or closed without the provider's end marker: the partial text stays.
    const interrupted = ctx.signal.aborted || stopReason === 'cancelled' || stopReason === 'interrupted'
    const status = interrupted ? 'interrupted' : error ? 'error' : 'complete'
    const finished = writer.finish(status, { ...(cost ? { cost } : {}), ...(error && !ctx.signal.aborted ? { error } : {}) })
    // The reply's images follow its text (a streamed row holds text only until it finishes);
    // the options the user chose are kept with it.
    const patch: MessagePatch = {}
    if (imageParts.length > 0) patch.content = [...finished.content, ...imageParts]
    if (chosen && Object.keys(chosen).length > 0) patch.meta = { ...finished.meta, options: chosen }
    if (knowledgeQuery) patch.meta = { ...(patch.meta ?? finished.meta), knowledgeQuery }
    if (reasoningFrom !== undefined && finished.reasoning) patch.reasoning = { ...finished.reasoning, durationMs: reasoningMs ?? Date.now() - reasoningFrom }
    // "You stopped it" is worded apart from a dropped connection (which keeps its error).
    if (ctx.signal.aborted && !abortedByShutdown(ctx.signal) && status === 'interrupted') patch.meta = { ...(patch.meta ?? finished.meta), interruptedBy: 'user' }
    const final = Object.keys(patch).length > 0 ? this.deps.messages.update(finished.id, patch) : finished
    return { message: final, status }
  }

  /**
   * The history to send: the agent's count, the newest summary, and — when automatic
   * compression is on and the rest is over the limit — a new summary of the older messages
   * (scene Summary History Messages), kept on the last message it covers. Only when even that
   * cannot fit is ExceededContextWindow raised.
   */
  private async *historyFor(
    conversation: Conversation,
    agent: Agent,
    model: ModelRef,
    history: Message[],
    params: ModelParameters,
    facts: ModelFacts | undefined,
    extraInstruction: string | undefined,
    signal: AbortSignal
  ): AsyncGenerator<ChatStreamEvent, HistoryPlan> {
    const systemPrompt = withArtifactInstruction(agent.systemPrompt, params.artifacts)
    const fixedTokens = (systemPrompt.trim() ? countTokens(systemPrompt) + 4 : 0) + (extraInstruction ? countTokens(extraInstruction) + 4 : 0)
    const reserve = facts?.contextWindowTokens ? Math.min(params.maxOutputTokens ?? 0, Math.floor(facts.contextWindowTokens / 2)) : 0
    const options = {
      fixedTokens,
      window: facts?.contextWindowTokens,
      reserve,
      tokensOf: this.tokensOf,
      ...(params.historyCount ? { historyCount: params.historyCount } : {}),
      ...(params.autoCompress ? { autoCompress: true } : {}),
      ...(params.compressAt ? { compressAt: params.compressAt } : {})
    }
    let plan = planHistory(history, options)
    if (plan.compress) {
      const older = plan.compress.older
      const last = older[older.length - 1]!
      const text = await this.summariseHistory(older, plan.summary?.text, model, signal)
      const summary = { text, covers: (plan.summary?.covers ?? 0) + older.length, providerId: model.providerId, modelId: model.modelId, at: Date.now() }
      const updated = this.deps.messages.update(last.id, { meta: { ...last.meta, historySummary: summary } })
      const at = history.findIndex((m) => m.id === last.id)
      history[at] = updated
      yield { type: 'summary', data: { conversationId: conversation.id, message: updated } }
      plan = planHistory(history, options)
    }
    if (plan.over) {
      const window = facts?.contextWindowTokens ?? 0
      throw new AppErrorException({
        errorType: 'ExceededContextWindow',
        status: 400,
        message: `This conversation is about ${plan.tokens.toLocaleString('en')} tokens${plan.summary ? ' even with its earlier part summarised' : ''}; ${model.modelId} reads at most ${window.toLocaleString('en')}.`
      })
    }
    return plan
  }

  /** Scene Summary History Messages: the older messages (and any earlier summary) as one summary. */
  private async summariseHistory(older: readonly Message[], previous: string | undefined, fallback: ModelRef, signal: AbortSignal): Promise<string> {
    // The summariser reads a bounded transcript: the newest part of each message, oldest dropped first.
    const clip = (text: string) => (text.length > 4000 ? `${text.slice(0, 2000)} … ${text.slice(-2000)}` : text)
    const lines = older.map((m) => `${m.role}: ${clip(messageText(m.content))}`)
    let transcript = lines.join('\n')
    if (transcript.length > 200_000) transcript = transcript.slice(-200_000)
    const { text } = await runScene(this.sceneDeps(), 'Summary History Messages', fallback, [
      { role: 'system', content: scenePrompts.history },
      { role: 'user', content: `${previous ? `Earlier summary:\n${previous}\n\n` : ''}${transcript}` }
    ], { signal, maxTokens: 1024 })
    if (!text) throw new AppErrorException({ errorType: 'ExceededContextWindow', status: 400, message: 'The earlier messages could not be summarised (the summary came back empty).' })
    return text
  }

  /**
   * What holds for every model call of one user turn: whether to search and where —
   * the provider's own search or the app's `web_search` through the tool loop — and, once the
   * first call made it, the retrieved knowledge.
   */
  private async turnPlan(conversation: Conversation, model: ModelRef, parent: Message, params: ModelParameters, signal: AbortSignal): Promise<TurnPlan> {
    const lastUser = [...this.path(conversation.id, parent.id)].reverse().find((m) => m.role === 'user')
    const search = await this.wantsSearch(params, lastUser, model, signal)
    if (!search) return { search }
    const facts = await this.deps.modelFacts(model.providerId, model.modelId)
    const appSearch = await this.deps.tools.searchAvailable().catch(() => false)
    const searchRoute = chooseSearchRoute(this.controlInput(model, facts), params, appSearch)
    return { search, ...(searchRoute ? { searchRoute } : {}) }
  }

  /** `search: auto` asks the scene Search Intent Recognition; a failure means no search. */
  private async wantsSearch(params: ModelParameters, last: Message | undefined, model: ModelRef, signal: AbortSignal): Promise<boolean> {
    if (params.search === 'on') return true
    if (params.search !== 'auto' || !last || last.role !== 'user') return false
    try {
      const { text } = await runScene(this.sceneDeps(), 'Search Intent Recognition', await this.sceneFallback(model), [
        { role: 'system', content: scenePrompts.searchIntent },
        { role: 'user', content: messageText(last.content).slice(0, 4000) }
      ], { signal, maxTokens: 4 })
      return /^(yes|是|true)/i.test(text)
    } catch {
      return false
    }
  }

  /**
   * Scene Search Intent Recognition for knowledge bases: the latest question, with the
   * messages before it, rewritten into one standalone search query. Only when Settings chose the
   * scene's model (no fallback, so without one nothing extra is asked); capped at
   * QUERY_REWRITE_TIMEOUT_MS and stopped with the reply. A failure is logged and the question is
   * searched as asked: retrieval never fails a reply over its rewrite.
   */
  private queryRewriter(conversationId: string, history: readonly Message[], question: Message): { rewrite?: (signal: AbortSignal) => Promise<string | undefined> } {
    if (!this.deps.caller.sceneChoice('Search Intent Recognition')) return {}
    const rewrite = async (signal: AbortSignal): Promise<string | undefined> => {
      const clip = (text: string) => (text.length > 1000 ? `${text.slice(0, 1000)} …` : text)
      const at = history.indexOf(question)
      const earlier = history
        .slice(0, at < 0 ? history.length : at)
        .filter((m) => (m.role === 'user' || m.role === 'assistant') && messageText(m.content).trim())
        .slice(-QUERY_REWRITE_CONTEXT)
        .map((m) => `${m.role}: ${clip(messageText(m.content))}`)
      const latest = messageText(question.content).slice(0, 4000)
      const timeout = AbortSignal.timeout(QUERY_REWRITE_TIMEOUT_MS)
      try {
        const { text } = await runScene(
          this.sceneDeps(),
          'Search Intent Recognition',
          undefined,
          [
            { role: 'system', content: scenePrompts.knowledgeQuery },
            { role: 'user', content: `${earlier.length ? `Conversation so far:\n${earlier.join('\n')}\n\n` : ''}Latest question: ${latest}` }
          ],
          { signal: AbortSignal.any([signal, timeout]), maxTokens: 128, conversationId }
        )
        const query = text.replace(/\s+/g, ' ').trim()
        return query && query.length <= 1000 ? query : undefined
      } catch (error) {
        if (signal.aborted) return undefined
        const why = timeout.aborted ? `it took longer than ${QUERY_REWRITE_TIMEOUT_MS / 1000} s` : undefined
        logger.warn('knowledge', `rewriting the question for knowledge retrieval failed${why ? ` (${why})` : ''}; searching it as asked`, why ? undefined : error)
        return undefined
      }
    }
    return { rewrite }
  }

  /** A scene's model when Settings chose none (./chat/scene-default-model). */
  private async sceneFallback(base: ModelRef | undefined): Promise<ModelRef | undefined> {
    return sceneDefaultModel(base)
  }

  private sceneDeps() {
    return this.deps.caller
  }

  /** A base64_image event as an image_file part (kept in the image store, offered in the gallery). */
  private async storeImage(
    image: { image: string; mimeType: string },
    at: { conversation: Conversation; model: { providerId: string; modelId: string }; parent: Message; messageId: string }
  ): Promise<ContentPart> {
    const saved = await this.deps.saveImage({
      base64: image.image,
      mimeType: image.mimeType,
      prompt: messageText(at.parent.content),
      providerId: at.model.providerId,
      modelId: at.model.modelId,
      conversationId: at.conversation.id,
      messageId: at.messageId
    })
    return { type: 'image_file', fileId: saved.fileId, mimeType: saved.mimeType, ...(saved.width ? { width: saved.width } : {}), ...(saved.height ? { height: saved.height } : {}) }
  }

  /**
   * Scene Summary Topic Title as its own task: started after a reply ends, cancellable
   * on its own. Titles a conversation still called "New chat" from its first complete exchange,
   * so a failed first reply followed by a successful retry still gets a title.
   */
  async *title(input: { conversationId: string }, ctx: { signal: AbortSignal }): AsyncGenerator<ChatStreamEvent, string | undefined> {
    const conversation = this.deps.conversations.require(input.conversationId)
    if (!untitled(conversation.title)) return undefined
    const all = this.deps.messages.list(conversation.id)
    const reply = all.find((m) => m.role === 'assistant' && m.status === 'complete' && messageText(m.content).trim())
    if (!reply) return undefined
    const agent = this.deps.agents.get(conversation.agentId)
    const fallback = reply.providerId && reply.modelId ? { providerId: reply.providerId, modelId: reply.modelId } : agent ? this.pickModel(conversation, agent) : undefined
    const exchange = [...this.path(conversation.id, reply.id)].map((m) => `${m.role}: ${messageText(m.content).slice(0, 2000)}`).join('\n')
    // A title that cannot be made (the model is not served, it answered nothing usable) is the
    // first words of the first message, not "New chat" for ever; a cancelled one is not made.
    const made = await runScene(this.sceneDeps(), 'Summary Topic Title', await this.sceneFallback(fallback), [
      { role: 'system', content: scenePrompts.title },
      { role: 'user', content: exchange }
    ], { signal: ctx.signal, maxTokens: 32 }).then(
      ({ text }) => cleanTitle(text),
      (error: unknown) => {
        if (ctx.signal.aborted) throw error
        logger.warn('chat', 'the title model failed; the conversation is named after its first message', error)
        return ''
      }
    )
    const firstUser = all.find((m) => m.role === 'user')
    const title = made || (firstUser ? fallbackTitle(messageText(firstUser.content)) : '')
    // A title set meanwhile (renamed by the user) wins.
    if (!title || !untitled(this.deps.conversations.require(conversation.id).title)) return undefined
    this.deps.conversations.update(conversation.id, { title })
    yield { type: 'title', data: { conversationId: conversation.id, title } }
    return title
  }

  /**
   * A stopped reply with the continuations that go on from it (chat.continue): the parts the
   * reader sees as one text. Where a part was continued more than once, the newest continuation.
   */
  private withContinuations(message: Message): Message[] {
    const parts = [message]
    if (message.role !== 'assistant' || message.status !== 'interrupted') return parts
    const all = this.deps.messages.list(message.conversationId)
    for (let last = message; last.status === 'interrupted'; ) {
      const next = all.filter((m) => joinsAsOneText(m, last)).at(-1)
      if (!next) break
      parts.push(next)
      last = next
    }
    return parts
  }

  /** Scene Translator: the message in `language`, kept under it (source language from Language Detect). A stopped reply is translated with its continuations, as it reads. */
  async translate(input: { messageId: string; language: string }): Promise<Message> {
    const message = this.deps.messages.require(input.messageId)
    const text = this.withContinuations(message)
      .map((part) => messageText(part.content))
      .join('')
    if (!text.trim()) throw new AppErrorException({ errorType: 'ValidationError', status: 400, message: 'This message has no text to translate.' })
    const fallback = await this.sceneFallback(this.modelOf(message))
    const deps = this.sceneDeps()
    // A failed detection is not fatal: the translator then works out the source itself.
    const from = await runScene(deps, 'Language Detect', fallback, [
      { role: 'system', content: scenePrompts.detect },
      { role: 'user', content: text.slice(0, 1000) }
    ], { maxTokens: 8 }).then((r) => r.text.split(/\s/)[0], () => undefined)
    const { text: translated } = await runScene(deps, 'Translator', fallback, [
      { role: 'system', content: scenePrompts.translate(input.language, from) },
      { role: 'user', content: text }
    ])
    const current = this.deps.messages.require(message.id)
    return this.deps.messages.update(message.id, { meta: { ...current.meta, translations: { ...current.meta?.translations, [input.language]: translated } } })
  }

  /** Forgets a history summary: the next reply summarises again, or sends everything. */
  forgetSummary(input: { messageId: string }): Message {
    const message = this.deps.messages.require(input.messageId)
    const { historySummary: _dropped, ...meta } = message.meta ?? {}
    return this.deps.messages.update(message.id, { meta })
  }

  /** Scenes Summary Agent Title, Description and Tags, from a system prompt (agent settings). */
  async agentMeta(input: { systemPrompt: string; providerId?: string; modelId?: string }): Promise<{ name: string; description: string; tags: string[] }> {
    const agent = this.defaultAgent()
    const fallback = await this.sceneFallback(
      input.providerId && input.modelId ? { providerId: input.providerId, modelId: input.modelId } : agent.providerId && agent.modelId ? { providerId: agent.providerId, modelId: agent.modelId } : undefined
    )
    const deps = this.sceneDeps()
    const ask = (scene: SceneName, prompt: string, maxTokens: number) =>
      runScene(deps, scene, fallback, [
        { role: 'system', content: prompt },
        { role: 'user', content: input.systemPrompt.slice(0, 20_000) }
      ], { maxTokens }).then((r) => r.text)
    const [name, description, tags] = await Promise.all([
      ask('Summary Agent Title', scenePrompts.agentTitle, 32),
      ask('Summary Agent Description', scenePrompts.agentDescription, 120),
      ask('Summary Agent Tags', scenePrompts.agentTags, 60)
    ])
    return {
      name: name.split('\n')[0]!.slice(0, 200),
      description: description.slice(0, 1000),
      tags: tags.split(/[,，、\n]/).map((t) => t.replace(/^#/, '').trim()).filter(Boolean).slice(0, 8)
    }
  }

  /** The model a message came from, else its conversation's. */
  private modelOf(message: Message): ModelRef | undefined {
    if (message.providerId && message.modelId) return { providerId: message.providerId, modelId: message.modelId }
    const conversation = this.deps.conversations.require(message.conversationId)
    const agent = this.deps.agents.get(conversation.agentId)
    const providerId = conversation.providerId ?? agent?.providerId
    const modelId = conversation.modelId ?? agent?.modelId
    return providerId && modelId ? { providerId, modelId } : undefined
  }
}
