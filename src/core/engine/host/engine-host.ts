import type {
  ChatWrapper,
  ChatModelFunctions,
  ChatHistoryItem,
  Llama,
  LlamaChat,
  LlamaContext,
  LlamaContextSequence,
  LlamaEmbeddingContext,
  LlamaModel,
  LlamaChatResponseChunk,
  Token,
  TokenBias
} from 'node-llama-cpp'
import type { ChatDone, ChatParams, EmbedParams, EngineErrorData, EngineReply, EngineRequest, EngineStatus, LoadParams } from '../protocol'
import { engineSystemError } from '../system-check'

/**
 * The engine host: runs in its own process (a child process, or an Electron utility process on the
 * desktop) so that a crash or an out-of-memory kill inside llama.cpp never takes the core down.
 * It holds the loaded models and answers the core's requests (../protocol.ts); all policy (which
 * model, what context, when to unload) is the core's.
 */
export interface HostPort {
  send(message: EngineReply): void
  onMessage(handler: (message: EngineRequest) => void): void
}

interface Loaded {
  params: LoadParams
  model: LlamaModel
  context: LlamaContext
  /** The context's sequences not in use: each chat takes one, so `sequences` chats run at once (the engine batches them). */
  free: LlamaContextSequence[]
  /** Chats waiting for a sequence, first come first served. */
  waiting: Array<(sequence: LlamaContextSequence) => void>
  /** The chats running now; an unload waits for them. */
  running: Set<Promise<unknown>>
  /** Resolved once at load: resolving it (rendering the model's Jinja template) takes ~0.3-0.9 s, every LlamaChat would pay it. */
  chatWrapper: ChatWrapper
  embedding?: Promise<LlamaEmbeddingContext>
  /** Embeddings one at a time (their own context). */
  queue: Promise<unknown>
}

/** Longest a streamed chunk waits to be joined with the next (far below what a reader notices). */
const COALESCE_MS = 8

class HostError extends Error {
  constructor(readonly code: EngineErrorData['code'], message: string) {
    super(message)
  }
}

/** What the host keeps between requests. */
interface HostState {
  port: HostPort
  llama: () => Promise<Llama>
  /** Set once the runtime has been asked for (status reports its release only then). */
  llamaStarted: () => Promise<Llama> | undefined
  /** llama.cpp says why a load failed only in its log (the thrown error is "Failed to load model"). */
  recentLogs: string[]
  models: Map<string, Loaded>
  loading: Map<string, Promise<Loaded>>
  aborts: Map<number, AbortController>
}

export function runEngineHost(port: HostPort): void {
  const state = hostState(port)
  port.onMessage((message) => dispatch(state, message))
  port.send({ id: 0, type: 'ready', data: { pid: process.pid } })
}

function hostState(port: HostPort): HostState {
  let llamaPromise: Promise<Llama> | undefined
  const recentLogs: string[] = []
  const llama = async (): Promise<Llama> => {
    llamaPromise ??= import('node-llama-cpp').then(({ getLlama, LlamaLogLevel }) =>
      getLlama({
        gpu: process.env.SWITCHBOARD_ENGINE_GPU === 'auto' ? 'auto' : false,
        build: 'never',
        logLevel: LlamaLogLevel.warn,
        progressLogs: false,
        logger: (level, message) => {
          recentLogs.push(message)
          if (recentLogs.length > 40) recentLogs.shift()
          if (level === LlamaLogLevel.error || level === LlamaLogLevel.fatal) process.stderr.write(`[engine] ${message}\n`)
        }
      }).catch((error: unknown) => {
        // A libstdc++ too old for the prebuilt is named, not left as NoBinaryFoundError.
        throw engineSystemError(error)
      })
    )
    return llamaPromise
  }
  return { port, llama, llamaStarted: () => llamaPromise, recentLogs, models: new Map(), loading: new Map(), aborts: new Map() }
}

// --- message dispatch ---

function dispatch(state: HostState, message: EngineRequest): void {
  const { port } = state
  switch (message.type) {
    case 'load':
      reply(port, message.id, async () => {
        const entry = await loadModel(state, message.params)
        return (await hostStatus(state)).models.find((m) => m.modelId === entry.params.modelId)
      })
      break
    case 'unload':
      reply(port, message.id, () => unloadModel(state, message.params.modelId))
      break
    case 'chat':
      chat(state, message.id, message.params).then(
        (data) => port.send({ id: message.id, type: 'done', data }),
        (error: unknown) => port.send({ id: message.id, type: 'error', error: errorData(error) })
      )
      break
    case 'embed':
      reply(port, message.id, () => embed(state, message.params))
      break
    case 'status':
      reply(port, message.id, () => hostStatus(state))
      break
    case 'abort':
      state.aborts.get(message.target)?.abort()
      reply(port, message.id, async () => undefined)
      break
  }
}

function reply(port: HostPort, id: number, work: () => Promise<unknown>): void {
  work().then(
    (data) => port.send({ id, type: 'result', data: data ?? null }),
    (error: unknown) => port.send({ id, type: 'error', error: errorData(error) })
  )
}

function errorData(error: unknown): EngineErrorData {
  return error instanceof HostError ? { code: error.code, message: error.message } : { code: 'failed', message: error instanceof Error ? error.message : String(error) }
}

// --- model load / unload ---

function loaded(state: HostState, modelId: string): Loaded {
  const entry = state.models.get(modelId)
  if (!entry) throw new HostError('not-loaded', `The model ${modelId} is not loaded in the engine.`)
  return entry
}

async function loadModel(state: HostState, params: LoadParams): Promise<Loaded> {
  const existing = state.models.get(params.modelId)
  if (existing && existing.params.path === params.path && existing.params.contextSize === params.contextSize) return existing
  if (existing) await unloadModel(state, params.modelId)
  const pending = state.loading.get(params.modelId)
  if (pending) return pending
  const promise = (async () => {
    const engine = await state.llama()
    const model = await loadWeights(state, engine, params)
    const entry = await withContext(model, params)
    state.models.set(params.modelId, entry)
    return entry
  })().finally(() => state.loading.delete(params.modelId))
  state.loading.set(params.modelId, promise)
  return promise
}

async function loadWeights(state: HostState, engine: Llama, params: LoadParams): Promise<LlamaModel> {
  state.recentLogs.length = 0
  try {
    return await engine.loadModel({ modelPath: params.path })
  } catch (error) {
    const logged = state.recentLogs.filter((l) => /error/i.test(l)).map((l) => l.trim())
    const message = [error instanceof Error ? error.message : String(error), ...logged.slice(-2)].join(': ')
    const arch = /unknown model architecture: '([^']+)'/i.exec(message)
    if (arch) throw new HostError('unsupported-architecture', `The model's architecture "${arch[1]}" is not supported by the built-in engine (llama.cpp ${engine.llamaCppRelease.release}). Run it with Ollama or LM Studio, or wait for an app update.`)
    throw new HostError('load-failed', `The engine could not load ${params.path}: ${message}`)
  }
}

async function withContext(model: LlamaModel, params: LoadParams): Promise<Loaded> {
  try {
    const sequences = Math.max(1, params.sequences ?? 1)
    const context = await model.createContext({ contextSize: params.contextSize, threads: params.threads, sequences })
    const { resolveChatWrapper, GeneralChatWrapper } = await import('node-llama-cpp')
    const chatWrapper = resolveChatWrapper(model) ?? new GeneralChatWrapper()
    const free = Array.from({ length: sequences }, () => context.getSequence())
    return { params, model, context, free, waiting: [], running: new Set(), chatWrapper, queue: Promise.resolve() }
  } catch (error) {
    await model.dispose()
    throw new HostError('load-failed', `The engine could not make a ${params.contextSize}-token context for ${params.modelId}: ${error instanceof Error ? error.message : String(error)}`)
  }
}

async function unloadModel(state: HostState, modelId: string): Promise<void> {
  const entry = state.models.get(modelId)
  if (!entry) return
  state.models.delete(modelId)
  await Promise.allSettled([...entry.running])
  await entry.queue.catch(() => undefined)
  if (entry.embedding) await (await entry.embedding.catch(() => undefined))?.dispose()
  await entry.context.dispose()
  await entry.model.dispose()
}

// --- sequences (chat slots) ---

/** A free sequence of the model's context (the most recently released first: its cache likely holds this conversation's start). */
function acquire(entry: Loaded, signal: AbortSignal): Promise<LlamaContextSequence> {
  return new Promise((resolve, reject) => {
    const sequence = entry.free.pop()
    if (sequence) return resolve(sequence)
    const take = (s: LlamaContextSequence) => resolve(s)
    entry.waiting.push(take)
    signal.addEventListener(
      'abort',
      () => {
        const at = entry.waiting.indexOf(take)
        if (at === -1) return
        entry.waiting.splice(at, 1)
        reject(new HostError('failed', 'Stopped before it started.'))
      },
      { once: true }
    )
  })
}

function release(entry: Loaded, sequence: LlamaContextSequence): void {
  const next = entry.waiting.shift()
  if (next) next(sequence)
  else entry.free.push(sequence)
}

// --- chat ---

async function chat(state: HostState, id: number, params: ChatParams): Promise<ChatDone> {
  const entry = loaded(state, params.modelId)
  const controller = new AbortController()
  state.aborts.set(id, controller)
  const received = performance.now()
  const sequence = await acquire(entry, controller.signal).catch((error: unknown) => {
    state.aborts.delete(id)
    throw error
  })
  const run = chatOnSequence(state, id, params, entry, sequence, controller.signal, received)
  entry.running.add(run)
  try {
    return await run
  } finally {
    entry.running.delete(run)
    release(entry, sequence)
    state.aborts.delete(id)
  }
}

async function chatOnSequence(state: HostState, id: number, params: ChatParams, entry: Loaded, sequence: LlamaContextSequence, signal: AbortSignal, received: number): Promise<ChatDone> {
  fitsWhole(entry, params.history as ChatHistoryItem[])
  const tokenBias = params.logitBias ? await logitBias(entry, params.logitBias) : undefined
  const { LlamaChat } = await import('node-llama-cpp')
  const engine = await state.llama()
  const llamaChat = new LlamaChat({ contextSequence: sequence, chatWrapper: entry.chatWrapper, autoDisposeSequence: false })
  const meterBefore = sequence.tokenMeter.getState()
  const timing = tokenTiming(sequence)
  const stream = chunkStream(state.port, id)
  const common: GenerateOptions = {
    // Without a limit a model that never emits its end token would generate forever
    // (the engine shifts its context): one context's worth is the most a reply may take.
    maxTokens: params.maxTokens ?? entry.context.contextSize,
    temperature: params.temperature,
    topP: params.topP,
    ...(params.stop?.length ? { customStopTriggers: params.stop } : {}),
    ...(tokenBias ? { tokenBias } : {}),
    signal,
    stopOnAbortSignal: true,
    onToken: timing.onToken,
    onResponseChunk: stream.onResponseChunk
  }
  let generated: Generated
  try {
    generated = await generate(engine, llamaChat, params, common)
  } finally {
    llamaChat.dispose({ disposeSequence: false })
    stream.flush()
  }
  const { result, functionCalls } = generated
  const meter = sequence.tokenMeter.diff(meterBefore)
  const { firstAt, lastAt, outputTokens } = timing
  const prompt = timing.promptTokens ?? Math.max(0, sequence.contextTokens.length - outputTokens)
  const done: ChatDone = {
    stopReason: functionCalls ? 'functionCalls' : result.metadata.stopReason,
    text: result.response,
    promptTokens: prompt,
    cachedPromptTokens: Math.max(0, prompt - meter.usedInputTokens),
    outputTokens
  }
  if (functionCalls) done.functionCalls = functionCalls
  if (firstAt !== undefined) done.ttftMs = firstAt - received
  if (firstAt !== undefined && lastAt !== undefined && lastAt > firstAt && outputTokens > 1) done.tokensPerSecond = (outputTokens - 1) / ((lastAt - firstAt) / 1000)
  return done
}

/** When the first and last tokens came and how many: time to first token, tokens per second, the prompt's size. */
function tokenTiming(sequence: LlamaContextSequence): {
  onToken: (tokens: Token[]) => void
  readonly firstAt: number | undefined
  readonly lastAt: number | undefined
  readonly outputTokens: number
  readonly promptTokens: number | undefined
} {
  let firstAt: number | undefined
  let lastAt: number | undefined
  let outputTokens = 0
  let promptTokens: number | undefined
  return {
    onToken: (tokens) => {
      const now = performance.now()
      if (firstAt === undefined) {
        firstAt = now
        promptTokens = Math.max(0, sequence.contextTokens.length - tokens.length)
      }
      lastAt = now
      outputTokens += tokens.length
    },
    get firstAt() {
      return firstAt
    },
    get lastAt() {
      return lastAt
    },
    get outputTokens() {
      return outputTokens
    },
    get promptTokens() {
      return promptTokens
    }
  }
}

/**
 * The reply's chunks to the core. The first chunk goes at once (time to first token); later ones of
 * the same kind are joined for up to COALESCE_MS, so a fast model does not pay one IPC message per token.
 */
function chunkStream(port: HostPort, id: number): { onResponseChunk: (chunk: LlamaChatResponseChunk) => void; flush: () => void } {
  let pending: { kind: 'text' | 'reasoning'; text: string } | undefined
  let lastSent = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  const flush = (): void => {
    if (timer) clearTimeout(timer)
    timer = undefined
    if (!pending) return
    port.send({ id, type: 'chunk', chunk: pending })
    pending = undefined
    lastSent = performance.now()
  }
  const push = (kind: 'text' | 'reasoning', text: string): void => {
    if (pending && pending.kind !== kind) flush()
    pending = pending ? { kind, text: pending.text + text } : { kind, text }
    const wait = lastSent + COALESCE_MS - performance.now()
    if (wait <= 0) flush()
    else timer ??= setTimeout(flush, wait)
  }
  const onResponseChunk = (chunk: LlamaChatResponseChunk): void => {
    if (!chunk.text) return
    if (chunk.type === 'segment') {
      if (chunk.segmentType === 'thought') push('reasoning', chunk.text)
      return
    }
    push('text', chunk.text)
  }
  return { onResponseChunk, flush }
}

/** The options every kind of reply shares (the union of the SDK's option types does not take them whole). */
interface GenerateOptions {
  maxTokens: number
  temperature: ChatParams['temperature']
  topP: ChatParams['topP']
  customStopTriggers?: string[]
  tokenBias?: TokenBias
  signal: AbortSignal
  stopOnAbortSignal: boolean
  onToken: (tokens: Token[]) => void
  onResponseChunk: (chunk: LlamaChatResponseChunk) => void
}
type Generated = { result: Awaited<ReturnType<LlamaChat['generateResponse']>>; functionCalls?: ChatDone['functionCalls'] }

/**
 * The context shift drops older turns to make room, and cuts the text of what is left when that
 * is not enough: a last message over the context would be answered from a fragment. What cannot
 * be dropped (the leading system turns and the last message) must fit whole. (The history ends
 * with the model turn to fill, after the last user message.)
 */
function fitsWhole(entry: Loaded, history: ChatHistoryItem[]): void {
  const firstOther = history.findIndex((item) => item.type !== 'system')
  const lastUser = history.findLastIndex((item) => item.type === 'user')
  const kept = firstOther === -1 || lastUser < firstOther ? history : [...history.slice(0, firstOther), ...history.slice(lastUser)]
  const needed = entry.chatWrapper.generateContextState({ chatHistory: kept }).contextText.tokenize(entry.model.tokenizer).length
  if (needed >= entry.context.contextSize)
    throw new HostError('context-exceeded', `the system prompt and the last message are ${needed} tokens; the context holds ${entry.context.contextSize}`)
}

/** One reply: a forced tool call, a JSON-schema reply, a reply that may call tools, or plain text. */
async function generate(engine: Llama, llamaChat: LlamaChat, params: ChatParams, common: GenerateOptions): Promise<Generated> {
  const history = params.history as ChatHistoryItem[]
  if (params.forceFunctionCall && params.functions?.length) {
    // A forced call (tool_choice required or named): the grammar admits only
    // {"name": <one of the tools>, "arguments": <its parameters>}.
    const candidates = params.functions.filter((f) => params.forceFunctionCall === true || f.name === params.forceFunctionCall)
    if (!candidates.length) throw new HostError('bad-request', `No tool named ${String(params.forceFunctionCall)}.`)
    const schema = {
      oneOf: candidates.map((f) => ({
        type: 'object',
        properties: { name: { const: f.name }, arguments: f.params ?? { type: 'object', properties: {} } },
        required: ['name', 'arguments']
      }))
    }
    const grammar = await engine.createGrammarForJsonSchema(schema as never)
    const result = await llamaChat.generateResponse(history, { ...common, onResponseChunk: undefined, grammar })
    if (result.metadata.stopReason === 'maxTokens') {
      throw new HostError('failed', `The tool call was cut off by the token limit (${params.maxTokens ?? '?'} tokens) before its arguments were complete; allow more tokens.`)
    }
    if (result.metadata.stopReason === 'abort') return { result }
    const parsed = JSON.parse(result.response) as { name: string; arguments: unknown }
    return { result, functionCalls: [{ name: parsed.name, params: parsed.arguments }] }
  }
  if (params.jsonSchema) {
    const grammar = await engine.createGrammarForJsonSchema(params.jsonSchema as never)
    return { result: await llamaChat.generateResponse(history, { ...common, grammar }) }
  }
  if (params.functions?.length) {
    const functions: ChatModelFunctions = Object.fromEntries(
      params.functions.map((f) => [f.name, { ...(f.description ? { description: f.description } : {}), ...(f.params ? { params: f.params as never } : {}) }])
    )
    const result = await llamaChat.generateResponse(history, { ...common, functions, documentFunctionParams: true })
    return result.functionCalls?.length ? { result, functionCalls: result.functionCalls.map((c) => ({ name: c.functionName, params: c.params })) } : { result }
  }
  return { result: await llamaChat.generateResponse(history, common) }
}

// --- embeddings ---

function serial<T>(entry: Loaded, run: () => Promise<T>): Promise<T> {
  const next = entry.queue.then(run, run)
  entry.queue = next.catch(() => undefined)
  return next
}

async function embed(state: HostState, params: EmbedParams): Promise<{ embeddings: number[][]; tokens: number }> {
  const entry = loaded(state, params.modelId)
  return serial(entry, async () => {
    // One thread: the embedding context's default thread count was many times slower on small machines.
    entry.embedding ??= entry.model.createEmbeddingContext({ threads: entry.params.threads, contextSize: Math.min(entry.params.contextSize, 4096) })
    const ctx = await entry.embedding
    const embeddings: number[][] = []
    let tokens = 0
    const vocabulary = vocabularySize(entry)
    for (const input of params.inputs) {
      const ids = typeof input === 'string' ? entry.model.tokenize(input) : checkedTokenIds(input, vocabulary)
      tokens += ids.length
      embeddings.push([...(await ctx.getEmbeddingFor(ids)).vector])
    }
    return { embeddings, tokens }
  })
}

/**
 * OpenAI's logit_bias as node-llama-cpp's token bias: −100 bans the token ('never'), any other
 * value is added to its logit. Ids outside the vocabulary are refused by name before any token.
 */
async function logitBias(entry: Loaded, bias: Record<string, number>): Promise<TokenBias> {
  const { TokenBias } = await import('node-llama-cpp')
  const entries = Object.entries(bias)
  const ids = checkedTokenIds(entries.map(([id]) => Number(id)), vocabularySize(entry))
  const tokenBias = new TokenBias(entry.model.tokenizer)
  entries.forEach(([, value], i) => tokenBias.set(ids[i]!, value <= -100 ? 'never' : { logit: value }))
  return tokenBias
}

/** How many tokens the model's vocabulary has, from its file (undefined when the file does not say). */
function vocabularySize(entry: Loaded): number | undefined {
  const metadata = entry.model.fileInfo.metadata as { tokenizer?: { ggml?: { tokens?: unknown } } } | undefined
  const tokens = metadata?.tokenizer?.ggml?.tokens
  return Array.isArray(tokens) ? tokens.length : undefined
}

/**
 * Token ids a client sent, checked before llama.cpp sees them: it refuses one outside the
 * vocabulary only as "Eval has failed", which names nothing the client can fix.
 */
function checkedTokenIds(ids: number[], vocabulary: number | undefined): Token[] {
  const bad = ids.find((id) => !Number.isInteger(id) || id < 0 || (vocabulary !== undefined && id >= vocabulary))
  if (bad !== undefined) throw new HostError('bad-request', `The token id ${bad} is not in this model's vocabulary${vocabulary === undefined ? '' : ` (0 to ${vocabulary - 1})`}.`)
  return ids as Token[]
}

// --- status ---

async function hostStatus(state: HostState): Promise<EngineStatus> {
  const out: EngineStatus = {
    pid: process.pid,
    rssBytes: process.memoryUsage().rss,
    models: [...state.models.values()].map((m) => ({
      modelId: m.params.modelId,
      path: m.params.path,
      contextSize: m.context.contextSize,
      trainedContextSize: m.model.trainContextSize,
      weightsBytes: m.model.size,
      contextBytes: m.context.stateSize,
      ...(m.model.fileInfo.metadata.general?.architecture ? { architecture: String(m.model.fileInfo.metadata.general.architecture) } : {})
    }))
  }
  const started = state.llamaStarted()
  if (started) {
    const engine = await started
    out.llamaCppRelease = engine.llamaCppRelease.release
    if (engine.gpu) {
      const vram = await engine.getVramState()
      out.vram = { total: vram.total, used: vram.used }
    }
  }
  return out
}
