import { mergeToolCalls } from '../../shared/chat/apply-event'
import type { CostBreakdown } from '../../shared/data/cost'
import type { ToolResult } from '../../shared/data/message'
import type { UsageLocation, UsageMode, UsageOperation, UsageScene } from '../../shared/data/usage-log'
import { AppErrorException } from '../../shared/errors/app-error'
import type { ChatPricingContext } from '../../shared/pricing/lookup-params'
import type { StreamEvent } from '../../shared/stream/events'
import type { UsageRecord } from '../../shared/stream/usage'
import type { ToolStreamEvent } from '../../shared/tools/types'
import { pricingContextOf } from '../runtime/pricing-context'
import { countTokens } from '../../shared/tokens/count-tokens'
import type { CallOptions, ChatMessage, ChatRequest, ProviderRuntime, ToolCall } from '../runtime/types'
import type { OfferedTool, ToolService } from '../tools/tool-service'
import { SCENES, cleanSceneText, type ModelRef, type SceneName } from './chat/scenes'

/** One line of the usage log, as the caller writes it. */
export interface UsageEntry {
  scene: UsageScene
  operation?: UsageOperation
  mode?: UsageMode
  location?: UsageLocation
  conversationId?: string
  messageId?: string
  providerId: string
  modelId: string
  usage?: UsageRecord
  cost?: CostBreakdown
  /** The local API key that made the call (Usage per key, its spend cap). */
  apiKeyId?: string
}

export interface ModelCallerDeps {
  /** The runtime of a provider with the user's credentials (key from the keychain, base URL from settings). */
  runtimeFor(providerId: string): Promise<ProviderRuntime>
  /** Prices a usage record with the catalogue's pricing of the model; undefined when unpriced. */
  price(providerId: string, modelId: string, usage: UsageRecord, context?: ChatPricingContext): Promise<CostBreakdown | undefined>
  /** The usage log (product.md §8); absent where nothing is recorded (the CLI). Never throws. */
  logUsage?(entry: UsageEntry): void
  /** The model Settings chose for a background scene; undefined: the call's target. */
  sceneModel?(scene: SceneName): ModelRef | undefined
}

/** A headless tool loop: the calls a model asks for run between its turns, history kept in memory. */
export interface CallTools {
  service: ToolService
  offered: readonly OfferedTool[]
  stepLimit: number
  autoApprove: boolean
}

export interface CallInput {
  /**
   * The model to run. For a background scene (titles, translation, summaries, search intent)
   * the model chosen for the scene in Settings wins and `target` is the fallback.
   */
  target?: ModelRef
  /** Where the spend is logged (Usage). */
  scene: UsageScene
  /** The conversation so far (a bare prompt is one user message). */
  messages: ChatMessage[]
  /** The rest of the request (temperature, max_tokens, tools, search…), as the runtime takes it. */
  params?: Omit<Partial<ChatRequest>, 'model' | 'messages'>
  /** Runs the tool loop in memory (the CLI); a chat reply runs its own store-backed steps. */
  tools?: CallTools
  operation?: UsageOperation
  mode?: UsageMode
  location?: UsageLocation
  conversationId?: string
  messageId?: string
  /** The local API key that made the call. */
  apiKeyId?: string
  /**
   * When the stream ends without the provider's usage (a client hung up, the call was stopped),
   * count what was produced with the app's tokenizer so the spend is not lost (the local API).
   */
  estimateUsage?: boolean
  signal?: AbortSignal
  /** Runtime call options (idle timeout, retries). */
  call?: Omit<CallOptions, 'signal'>
}

/** What one call ended with, after its stream: the model that ran, its usage and price. */
export interface CallResult {
  model: ModelRef
  usage?: UsageRecord
  cost?: CostBreakdown
  /** The first error event of the stream, if any. */
  error?: StreamEvent & { type: 'error' }
  /** The in-memory history after a tool loop (the request's messages plus its turns). */
  messages: ChatMessage[]
}

export type CallEvent = StreamEvent | ToolStreamEvent | { type: 'tool_result'; data: ToolResult }

const isSceneName = (scene: UsageScene): scene is SceneName => (SCENES as readonly string[]).includes(scene)

/**
 * The one model caller: every call to a model (chat replies, Chat Competition, scenes,
 * knowledge evals, the CLI) goes through here, so each is resolved, priced and logged the
 * same way. A chat reply adds history, knowledge and its store-backed tool steps around
 * `run`; a bare prompt uses `text`.
 */
export class ModelCaller {
  constructor(private readonly deps: ModelCallerDeps) {}

  /** The model Settings chose for a background scene, if any (the rewrite of a question runs only then). */
  sceneChoice(scene: SceneName): ModelRef | undefined {
    return this.deps.sceneModel?.(scene)
  }

  /** The model a call runs: the scene's choice in Settings, else the call's target. */
  resolve(input: Pick<CallInput, 'scene' | 'target'>): ModelRef {
    const model = (isSceneName(input.scene) ? this.deps.sceneModel?.(input.scene) : undefined) ?? input.target
    if (!model) throw new AppErrorException({ errorType: 'ModelNotFound', status: 404, message: `Choose a model for the scene “${input.scene}” in Settings.` })
    return model
  }

  /**
   * Streams one call (or, with `tools`, the whole loop) and returns what it cost. The usage
   * line is written however it ends: a provider error, a thrown error or a cancelled signal.
   */
  async *run(input: CallInput): AsyncGenerator<CallEvent, CallResult> {
    const model = this.resolve(input)
    const runtime = await this.deps.runtimeFor(model.providerId)
    if (!runtime.chat) throw new AppErrorException({ errorType: 'ProviderBizError', status: 471, message: `${model.providerId} does not offer chat.` })
    const chat = runtime.chat.bind(runtime)
    const messages = [...input.messages]
    const base: ChatRequest = { stream: true, ...input.params, model: model.modelId, messages }
    const options: CallOptions = { ...input.call, ...(input.signal ? { signal: input.signal } : {}) }
    const loop = input.tools
    // Loaded only for a tool loop: a plain call (the CLI's chat) never loads the tool code.
    const steps = loop ? await import('../tools/tool-loop') : undefined
    let usage: UsageRecord | undefined
    let error: (StreamEvent & { type: 'error' }) | undefined
    let produced = ''
    let thrown = false
    let result: CallResult | undefined
    try {
      for (let step = 0; ; step++) {
        const offered = loop && step < loop.stepLimit - 1 && loop.offered.length ? loop.offered.map((t) => t.chatTool) : undefined
        const request: ChatRequest = loop ? { ...base, messages: [...messages], ...(offered ? { tools: offered } : { tools: undefined }) } : base
        let calls: ToolCall[] = []
        let text = ''
        let stepUsage: UsageRecord | undefined
        for await (const event of chat(request, options)) {
          if (event.type === 'usage') {
            stepUsage = event.data
            produced = ''
          }
          if (event.type === 'error') error ??= event
          if (event.type === 'tool_calls') calls = mergeToolCalls(calls, event.data)
          if (event.type === 'text') text += event.data
          if (input.estimateUsage && (event.type === 'text' || event.type === 'reasoning')) produced += event.data
          if (input.estimateUsage && event.type === 'tool_calls') produced += event.data.map((c) => c.function.arguments).join('')
          yield event
        }
        if (stepUsage) usage = addUsage(usage, stepUsage)
        else usage = estimated(usage, produced)
        produced = ''
        if (!loop || error || calls.length === 0 || input.signal?.aborted) break
        // The same step runner, approvals and errors as a chat reply, with the history in memory.
        const clean = calls.map((c) => ({ id: c.id, type: 'function', function: c.function, ...(c.thoughtSignature ? { thoughtSignature: c.thoughtSignature } : {}) }))
        messages.push({ role: 'assistant', content: text, tool_calls: clean })
        const outcome = yield* steps!.runToolStep(loop.service, loop.offered, clean, { messageId: `headless-${step}`, signal: input.signal ?? new AbortController().signal, autoApprove: loop.autoApprove, model })
        for (const result of outcome.results) yield { type: 'tool_result', data: result }
        messages.push(...steps!.toolTurnMessages(clean, outcome.results))
      }
    } catch (cause) {
      thrown = true
      throw cause
    } finally {
      // A consumer that stopped mid-step (a client that hung up) leaves its text here, unpriced so far.
      usage = estimated(usage, produced)
      // Written before the caller sees the end (or the error): a reply's spend is never lost.
      const cost = usage ? await this.deps.price(model.providerId, model.modelId, usage, pricingContextOf(base)).catch(() => undefined) : undefined
      this.log(input, model, usage, cost)
      if (!thrown) result = { model, ...(usage ? { usage } : {}), ...(cost ? { cost } : {}), ...(error ? { error } : {}), messages }
    }
    return result!
  }

  /**
   * A bare prompt to text: the reply collected, think blocks and wrapping quotes removed
   * (unless `clean: false`). A provider error throws; so does a cancelled signal.
   */
  async text(input: CallInput & { clean?: boolean }): Promise<{ text: string; model: ModelRef; usage?: UsageRecord; cost?: CostBreakdown }> {
    let text = ''
    const run = this.run(input)
    let next = await run.next()
    while (!next.done) {
      if (next.value.type === 'text') text += next.value.data
      next = await run.next()
    }
    const result = next.value
    if (result.error) throw new AppErrorException(result.error.data)
    if (input.signal?.aborted) throw new AppErrorException({ errorType: 'ProviderBizError', status: 499, message: 'Request was cancelled' })
    return { text: input.clean === false ? text : cleanSceneText(text), model: result.model, ...(result.usage ? { usage: result.usage } : {}), ...(result.cost ? { cost: result.cost } : {}) }
  }

  private log(input: CallInput, model: ModelRef, usage: UsageRecord | undefined, cost: CostBreakdown | undefined): void {
    this.deps.logUsage?.({
      scene: input.scene,
      ...(input.operation ? { operation: input.operation } : {}),
      ...(input.mode ? { mode: input.mode } : {}),
      ...(input.location ? { location: input.location } : {}),
      ...(input.conversationId ? { conversationId: input.conversationId } : {}),
      ...(input.messageId ? { messageId: input.messageId } : {}),
      ...(input.apiKeyId ? { apiKeyId: input.apiKeyId } : {}),
      providerId: model.providerId,
      modelId: model.modelId,
      usage,
      cost
    })
  }
}

/** What was produced without the provider's usage, counted by the app's tokenizer (nothing when empty). */
function estimated(total: UsageRecord | undefined, produced: string): UsageRecord | undefined {
  if (!produced) return total
  const tokens = countTokens(produced)
  return addUsage(total, { totalOutputTokens: tokens, outputTextTokens: tokens })
}

/** A tool loop's calls add up: each step reports its own usage. */
function addUsage(total: UsageRecord | undefined, next: UsageRecord): UsageRecord {
  if (!total) return next
  const sum: Record<string, unknown> = { ...total }
  for (const [key, value] of Object.entries(next)) {
    const before = sum[key]
    sum[key] = typeof value === 'number' && typeof before === 'number' ? before + value : value
  }
  return sum as unknown as UsageRecord
}
