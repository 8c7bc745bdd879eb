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
import { hasBatches } from '../runtime/stream/event-batches'
import { countTokens } from '../../shared/tokens/count-tokens'
import type { CallOptions, ChatMessage, ChatRequest, EmbeddingsRequest, EmbeddingsResult, ProviderRuntime, ToolCall } from '../runtime/types'
import type { OfferedTool, ToolService } from '../tools/tool-service'
import { SCENES, cleanSceneText, type ModelRef, type SceneName } from '../chat/scenes'
import { composeLayers, meterLayer, metaOf, timeoutLayer, type CallLayer, type CallNext, type CallMeta, type Metered, type OneCall, type UsageEntry } from './metered-call'

export type { CallMeta, Metered, OneCall, UsageEntry } from './metered-call'

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

/**
 * A call's events, then its result as the iterator's return value; `return()` stops it (and logs it).
 * A plain call also hands over the events ready together (`nextBatch`, ../runtime/stream/event-batches).
 */
export interface CallStream extends AsyncIterator<CallEvent, CallResult> {
  [Symbol.asyncIterator](): CallStream
  return(value?: CallResult | PromiseLike<CallResult>): Promise<IteratorResult<CallEvent, CallResult>>
}

type ChatFn = (request: ChatRequest, options: CallOptions) => AsyncIterable<StreamEvent>

interface OpenCall {
  input: CallInput
  model: ModelRef
  chat: ChatFn
  base: ChatRequest
  options: CallOptions
  tally: Tally
}

/** What a call's events add up to: usage over steps, the first error, a step's tool calls and text. */
class Tally {
  usage: UsageRecord | undefined
  error: (StreamEvent & { type: 'error' }) | undefined
  private stepUsage: UsageRecord | undefined
  private produced = ''
  private calls: ToolCall[] = []
  private text = ''

  constructor(private readonly estimate: boolean) {}

  see(event: CallEvent): void {
    switch (event.type) {
      case 'text':
        this.text += event.data
        if (this.estimate) this.produced += event.data
        break
      case 'reasoning':
        if (this.estimate) this.produced += event.data
        break
      case 'usage':
        this.stepUsage = event.data
        this.produced = ''
        break
      case 'error':
        this.error ??= event
        break
      case 'tool_calls':
        this.calls = mergeToolCalls(this.calls, event.data)
        if (this.estimate) this.produced += event.data.map((c) => c.function.arguments).join('')
        break
    }
  }

  /** A step's stream ended: its usage (or an estimate of what it produced) counts. */
  endStep(): { calls: ToolCall[]; text: string } {
    this.usage = this.stepUsage ? addUsage(this.usage, this.stepUsage) : estimated(this.usage, this.produced)
    const step = { calls: this.calls, text: this.text }
    this.stepUsage = undefined
    this.produced = ''
    this.calls = []
    this.text = ''
    return step
  }

  /** The call is over: what a stopped step produced is counted too. */
  close(): UsageRecord | undefined {
    this.usage = estimated(this.usage, this.produced)
    this.produced = ''
    return this.usage
  }
}

/**
 * A call without tools: the runtime's events passed on as they come, each seen by the tally
 * on the way, the usage line written when the stream ends, throws or is stopped.
 */
class PlainCall implements CallStream {
  private call: OpenCall | undefined
  private inner: AsyncIterator<StreamEvent> | undefined
  private state: 'new' | 'open' | 'done' = 'new'
  private result: CallResult | undefined

  constructor(
    private readonly input: CallInput,
    private readonly opener: (input: CallInput) => Promise<OpenCall>,
    private readonly settle: (call: OpenCall) => Promise<CallResult>
  ) {}

  [Symbol.asyncIterator](): CallStream {
    return this
  }

  next(): Promise<IteratorResult<CallEvent, CallResult>> {
    if (this.state === 'open') return this.inner!.next().then(this.step, this.fail)
    if (this.state === 'done') return Promise.resolve({ done: true, value: this.result! })
    return this.opener(this.input).then(
      (call) => {
        this.call = call
        this.inner = call.chat(call.base, call.options)[Symbol.asyncIterator]()
        this.state = 'open'
        return this.next()
      },
      (cause: unknown) => {
        this.state = 'done'
        throw cause
      }
    )
  }

  /** The events ready together (the runtime's batches when it offers them), each seen by the tally. */
  nextBatch(): Promise<IteratorResult<CallEvent[], CallResult>> {
    if (this.state === 'open' && hasBatches<StreamEvent>(this.inner!)) return this.inner.nextBatch().then(this.stepBatch, this.fail)
    return this.next().then((next) => (next.done ? next : { done: false, value: [next.value] }))
  }

  private readonly stepBatch = (next: IteratorResult<StreamEvent[]>): IteratorResult<CallEvent[], CallResult> | Promise<IteratorResult<CallEvent[], CallResult>> => {
    if (next.done) return this.finish()
    const tally = this.call!.tally
    for (let i = 0; i < next.value.length; i++) tally.see(next.value[i]!)
    return next
  }

  private readonly step = (next: IteratorResult<StreamEvent>): IteratorResult<CallEvent, CallResult> | Promise<IteratorResult<CallEvent, CallResult>> => {
    if (!next.done) {
      this.call!.tally.see(next.value)
      return next
    }
    return this.finish()
  }

  /** The runtime's stream ended: the step's usage counts, the call is priced and logged. */
  private finish(): Promise<IteratorReturnResult<CallResult>> {
    this.state = 'done'
    this.call!.tally.endStep()
    return this.settle(this.call!).then((result) => {
      this.result = result
      return { done: true, value: result }
    })
  }

  private readonly fail = (cause: unknown): Promise<never> => {
    this.state = 'done'
    return this.settle(this.call!).then(() => {
      throw cause
    })
  }

  async return(value?: CallResult | PromiseLike<CallResult>): Promise<IteratorResult<CallEvent, CallResult>> {
    if (this.state === 'open') {
      this.state = 'done'
      try {
        await this.inner!.return?.()
      } finally {
        this.result = await this.settle(this.call!)
      }
    }
    this.state = 'done'
    return { done: true, value: this.result ?? (await value)! }
  }

  async throw(cause?: unknown): Promise<IteratorResult<CallEvent, CallResult>> {
    await this.return()
    throw cause
  }
}

const isSceneName = (scene: UsageScene): scene is SceneName => (SCENES as readonly string[]).includes(scene)

/**
 * The one model caller: every call to a model (chat replies, Chat Competition, scenes,
 * knowledge evals, connection tests, embeddings, rerank, speech, images, the CLI) goes through
 * here, so each is resolved, priced and logged the same way, with its kind and scene. A chat
 * reply adds history, knowledge and its store-backed tool steps around `run`; a bare prompt
 * uses `text`; every other kind is a `OneCall` description run by `call`.
 */
export class ModelCaller {
  private readonly oneCall: CallNext

  constructor(private readonly deps: ModelCallerDeps) {
    const layers: CallLayer[] = [
      timeoutLayer,
      meterLayer({ price: (providerId, modelId, usage) => deps.price(providerId, modelId, usage), log: (entry) => deps.logUsage?.(entry) })
    ]
    this.oneCall = composeLayers(layers, (call, model) => this.invoke(call, model))
  }

  /**
   * One call that is not a chat stream (an embedding, a rerank, speech, an image): resolved like
   * a chat call, passed through the layers (time limit, pricing, the usage log) to its provider
   * step. A failure throws and logs nothing (nothing was billed that the provider told us of).
   */
  call<T>(spec: OneCall<T>): Promise<Metered<T>> {
    return this.oneCall(spec, this.resolve(spec))
  }

  /**
   * Embeddings through the provider's runtime, priced per input token and logged. `tokenIds`
   * (the local API's integer inputs) go in place of `input` only to a runtime that takes them.
   */
  async embed(input: CallMeta & { target: ModelRef; input: string[]; tokenIds?: number[][]; dimensions?: number; signal?: AbortSignal; call?: OneCall<unknown>['call'] }): Promise<EmbeddingsResult> {
    const { result } = await this.call<EmbeddingsResult>({
      ...metaOf(input),
      kind: 'embedding',
      target: input.target,
      ...(input.signal ? { signal: input.signal } : {}),
      ...(input.call ? { call: input.call } : {}),
      invoke: async ({ model, runtime, options }) => {
        const provider = await runtime()
        if (!provider.embeddings)
          throw new AppErrorException({ errorType: 'CapabilityNotSupported', status: 400, provider: model.providerId, message: `${model.providerId} does not offer embeddings.` })
        if (input.tokenIds && !provider.embeddingsTakeTokenIds)
          throw new AppErrorException({ errorType: 'CapabilityNotSupported', status: 400, provider: model.providerId, message: `${model.providerId} takes text for embeddings, not token ids: send the text itself.` })
        const request: EmbeddingsRequest = { model: model.modelId, input: input.input, ...(input.tokenIds ? { tokenIds: input.tokenIds } : {}), ...(input.dimensions ? { dimensions: input.dimensions } : {}) }
        return provider.embeddings(request, options)
      },
      measure: (result) => {
        const tokens = result.usage?.promptTokens ?? result.usage?.totalTokens
        return tokens === undefined ? undefined : { totalInputTokens: tokens, inputTextTokens: tokens, totalTokens: tokens }
      }
    })
    return result
  }

  /** The provider step under the layers: the call's runtime options, its time taken. */
  private async invoke<T>(call: OneCall<T>, model: ModelRef): Promise<Metered<T>> {
    const started = Date.now()
    const options: CallOptions = { ...call.call, ...(call.signal ? { signal: call.signal } : {}) }
    const result = await call.invoke({ model, options, runtime: () => this.deps.runtimeFor(model.providerId) })
    return { result, model, durationMs: Date.now() - started }
  }

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
   * A plain call is read through a thin iterator rather than a generator: a generator around
   * the runtime's stream would cost every event of a long reply one more async hop (the CLI,
   * the local API and the chat all read through here). Both share the same bookkeeping.
   */
  run(input: CallInput): CallStream {
    return input.tools ? this.loop(input, input.tools) : new PlainCall(input, (i) => this.open(i), (call) => this.settle(call))
  }

  /** The model, its runtime and the request of a call; throws (nothing logged) when it cannot start. */
  private async open(input: CallInput): Promise<OpenCall> {
    const model = this.resolve(input)
    const runtime = await this.deps.runtimeFor(model.providerId)
    if (!runtime.chat) throw new AppErrorException({ errorType: 'ProviderBizError', status: 471, message: `${model.providerId} does not offer chat.` })
    refuseUntakenOptions(input.params, runtime, model.providerId)
    const base: ChatRequest = { stream: true, ...input.params, model: model.modelId, messages: [...input.messages] }
    const options: CallOptions = { ...input.call, ...(input.signal ? { signal: input.signal } : {}) }
    return { input, model, chat: runtime.chat.bind(runtime), base, options, tally: new Tally(input.estimateUsage === true) }
  }

  /** The tool loop: the calls a model asks for run between its turns, history kept in memory. */
  private async *loop(input: CallInput, loop: CallTools): AsyncGenerator<CallEvent, CallResult> {
    const call = await this.open(input)
    const { chat, base, options, tally, model } = call
    const messages = base.messages
    const steps = await import('../tools/tool-loop')
    let result: CallResult | undefined
    try {
      for (let step = 0; ; step++) {
        const offered = step < loop.stepLimit - 1 && loop.offered.length ? loop.offered.map((t) => t.chatTool) : undefined
        const request: ChatRequest = { ...base, messages: [...messages], ...(offered ? { tools: offered } : { tools: undefined }) }
        for await (const event of chat(request, options)) {
          tally.see(event)
          yield event
        }
        const { calls, text } = tally.endStep()
        if (tally.error || calls.length === 0 || input.signal?.aborted) break
        // The same step runner, approvals and errors as a chat reply, with the history in memory.
        const clean = calls.map((c) => ({ id: c.id, type: 'function', function: c.function, ...(c.thoughtSignature ? { thoughtSignature: c.thoughtSignature } : {}) }))
        messages.push({ role: 'assistant', content: text, tool_calls: clean })
        const outcome = yield* steps.runToolStep(loop.service, loop.offered, clean, { messageId: `headless-${step}`, signal: input.signal ?? new AbortController().signal, autoApprove: loop.autoApprove, model })
        for (const result of outcome.results) yield { type: 'tool_result', data: result }
        messages.push(...steps.toolTurnMessages(clean, outcome.results))
      }
    } finally {
      result = await this.settle(call)
    }
    return result!
  }

  /**
   * Prices and logs a call however it ended. Written before the caller sees the end (or the
   * error): a reply's spend is never lost.
   */
  private async settle(call: OpenCall): Promise<CallResult> {
    const { input, model, base, tally } = call
    // A consumer that stopped mid-step (a client that hung up) leaves its text here, unpriced so far.
    const usage = tally.close()
    const cost = usage ? await this.deps.price(model.providerId, model.modelId, usage, pricingContextOf(base)).catch(() => undefined) : undefined
    this.log(input, model, usage, cost)
    return { model, ...(usage ? { usage } : {}), ...(cost ? { cost } : {}), ...(tally.error ? { error: tally.error } : {}), messages: base.messages }
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
    this.deps.logUsage?.({ ...metaOf(input), kind: 'chat', providerId: model.providerId, modelId: model.modelId, usage, cost })
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

/**
 * Token biases and log-probabilities are refused by name where the runtime cannot honour them,
 * before anything is sent: dropping them would answer a different question than was asked.
 */
function refuseUntakenOptions(params: CallInput['params'], runtime: ProviderRuntime, provider: string): void {
  const takes = runtime.chatTakes ?? {}
  const refuse = (option: string, why: string): never => {
    throw new AppErrorException({ errorType: 'CapabilityNotSupported', status: 400, provider, message: `${provider} does not take ${option}: ${why}`, detail: { param: option } })
  }
  if (params?.logit_bias && Object.keys(params.logit_bias).length > 0 && !takes.logitBias) refuse('logit_bias', 'its API has no token biases. Send the request without it.')
  if ((params?.logprobs || params?.top_logprobs) && !takes.logprobs) refuse(params.logprobs ? 'logprobs' : 'top_logprobs', 'its replies come back without token log-probabilities. Send the request without it.')
}
