import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import type { ZodType } from 'zod'
import type { StreamEvent } from '../../shared/stream/events'
import type { ChatRequest } from '../runtime/types'
import { logger } from '../log/logger'
import { AppErrorException } from '../../shared/errors/app-error'
import { GatewayError, anthropicError, openAIError } from './gateway-error'
import { RateLimiter, findKey, hostAllowed, modelAllowed, originAllowed, presentedKey, type StoredApiKey } from './access'
import type { GatewayBackend, GatewayCallContext, GatewayTarget } from './backend'
import { hasBatches } from '../runtime/stream/event-batches'
import { estimatePromptTokens } from '../runtime/providers/ollama/ollama-num-ctx'
import { ChatCompletionChunks, ChatCompletionCollector, chatCompletionSchema, chatCompletionToRequest } from './wire/openai-chat'
import { AnthropicMessageEvents, anthropicCountTokensSchema, anthropicMessagesSchema, anthropicToRequest, collectAnthropicMessage, type AnthropicEvent } from './wire/anthropic-messages'
import { ResponsesEvents, responsesSchema, responsesToRequest } from './wire/openai-responses'
import { embeddingInputs, embeddingsSchema, embeddingsResponse } from './wire/openai-embeddings'
import { JsonDepthGuard } from './json-depth'

/** What the server reads on every request, so Settings changes apply without a restart. */
export interface GatewayAccessConfig {
  keys: readonly StoredApiKey[]
  aliases: Readonly<Record<string, string>>
  allowedOrigins: readonly string[]
  allowedHosts: readonly string[]
}

export interface GatewayServerOptions {
  host: string
  port: number
  backend: GatewayBackend
  config(): GatewayAccessConfig
  /** Largest request body (bytes). Default 32 MiB: images travel base64 inside JSON. */
  maxBodyBytes?: number
  /** Tests shorten time. */
  now?: () => number
}

export interface GatewayServer {
  url: string
  close(): Promise<void>
}

type Api = 'openai' | 'anthropic'

/**
 * The local API: OpenAI's Chat Completions, Responses, Embeddings and Models, and Anthropic's
 * Messages, over node:http. Every request is checked in the same order: Host, Origin, key,
 * rate limit, spend cap, body size, body shape, model; each refusal in the caller's API shape.
 */
export async function startGatewayServer(options: GatewayServerOptions): Promise<GatewayServer> {
  const limiter = new RateLimiter(options.now)
  const maxBody = options.maxBodyBytes ?? 32 * 1024 * 1024
  const server = createServer((req, res) => {
    const api: Api = (req.url ?? '').startsWith('/v1/messages') ? 'anthropic' : 'openai'
    handle(req, res).catch((error: unknown) => {
      const failure =
        error instanceof GatewayError
          ? error
          : error instanceof AppErrorException
            ? GatewayError.fromAppError(error.error)
            : new GatewayError('api', 'The local API failed to answer; see the app log.')
      if (!(error instanceof GatewayError) && !(error instanceof AppErrorException)) logger.warn('local-api', 'request failed', error)
      sendError(res, api, failure)
    })
  })
  // A stalled client must not hold a socket forever; streams keep theirs open while they write.
  server.headersTimeout = 30_000
  server.requestTimeout = 120_000

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const config = options.config()
    if (!hostAllowed(req.headers.host, options.host, config.allowedHosts)) {
      throw new GatewayError('permission', `The Host ${JSON.stringify(req.headers.host ?? '')} is not allowed: add it under Settings → Local API → Allowed host names.`)
    }
    const origin = typeof req.headers.origin === 'string' ? req.headers.origin : undefined
    if (!originAllowed(origin, config.allowedOrigins)) {
      throw new GatewayError('permission', `Requests from web pages at ${origin} are not allowed: add the origin under Settings → Local API → Allowed origins.`)
    }
    if (origin) {
      res.setHeader('access-control-allow-origin', origin)
      res.setHeader('vary', 'Origin')
    }
    if (req.method === 'OPTIONS' && origin) {
      res.writeHead(204, {
        'access-control-allow-methods': 'GET, POST, OPTIONS',
        'access-control-allow-headers': 'authorization, content-type, x-api-key, anthropic-version, anthropic-beta, openai-organization, openai-project, x-stainless-*',
        'access-control-max-age': '600'
      })
      res.end()
      return
    }
    const url = new URL(req.url ?? '/', 'http://gateway.invalid')
    const route = `${req.method ?? 'GET'} ${url.pathname.replace(/\/+$/, '')}`
    const known = ['GET /v1/models', 'POST /v1/chat/completions', 'POST /v1/embeddings', 'POST /v1/responses', 'POST /v1/messages', 'POST /v1/messages/count_tokens']
    if (!known.includes(route)) throw new GatewayError('not_found', `There is no ${route} here. The local API serves ${known.join(', ')}.`)
    const key = findKey(config.keys, presentedKey(req.headers))
    limiter.take(key)
    if (key.spendCapUsd !== undefined && route !== 'GET /v1/models') {
      const spent = options.backend.spent(key.id).usd
      if (spent >= key.spendCapUsd) {
        throw new GatewayError('quota', `The key "${key.name}" has spent $${spent.toFixed(4)} of its $${key.spendCapUsd} cap. Raise the cap in Settings → Local API.`)
      }
    }
    if (route === 'GET /v1/models') return listModels(res, key, config)
    const body = await readJson(req, maxBody)
    const controller = new AbortController()
    // The client went away: stop the upstream call (its usage is logged for what was produced).
    res.on('close', () => {
      if (!res.writableFinished) controller.abort()
    })
    const context = (kind: GatewayCallContext['api']): GatewayCallContext => ({ signal: controller.signal, keyId: key.id, api: kind })
    // What was left out of a request (a tool the upstream lacks): said in a header and the log, not refused.
    const warnings: string[] = []
    const warn = (): void => {
      if (warnings.length === 0) return
      res.setHeader('x-switchboard-warning', warnings.map((w) => w.replace(/[^\x20-\x7e]/g, '?')).join(' | '))
      logger.warn('local-api', `${route}: ${warnings.join(' ')}`)
    }
    switch (route) {
      case 'POST /v1/chat/completions': {
        const input = parse(chatCompletionSchema, body)
        const target = await admitted(input.model, key, config)
        const request = chatCompletionToRequest(input, target.modelId)
        const events = options.backend.chat(target, request, context('chat.completions'))
        return input.stream ? streamChatCompletion(res, events, input.model, input.stream_options?.include_usage === true) : answerChatCompletion(res, events, input.model)
      }
      case 'POST /v1/responses': {
        const input = parse(responsesSchema, body)
        const target = await admitted(input.model, key, config)
        const request = responsesToRequest(input, target.modelId, warnings, { nativeApi: options.backend.nativeApi?.(target) })
        warn()
        const events = options.backend.chat(target, request, context('responses'))
        const encoder = new ResponsesEvents(`resp_${randomBytes(12).toString('hex')}`, input.model, Math.floor(Date.now() / 1000), input)
        return input.stream ? streamResponses(res, events, encoder) : answerResponses(res, events, encoder)
      }
      case 'POST /v1/messages': {
        const input = parse(anthropicMessagesSchema, body)
        const target = await admitted(input.model, key, config)
        const request = anthropicToRequest(input, target.modelId, warnings, { nativeApi: options.backend.nativeApi?.(target) })
        warn()
        const events = options.backend.chat(target, request, context('messages'))
        const encoder = new AnthropicMessageEvents(`msg_${randomBytes(12).toString('hex')}`, input.model, estimatePromptTokens(request))
        return input.stream ? streamAnthropic(res, events, encoder) : answerAnthropic(res, events, encoder)
      }
      case 'POST /v1/messages/count_tokens': {
        const input = parse(anthropicCountTokensSchema, body)
        await admitted(input.model, key, config)
        // An estimate (the one Ollama's context sizing uses): the upstreams have no common way to count.
        return sendJson(res, 200, { input_tokens: estimatePromptTokens(anthropicToRequest(input, input.model)) })
      }
      case 'POST /v1/embeddings': {
        const input = parse(embeddingsSchema, body)
        const target = await admitted(input.model, key, config)
        const result = await options.backend.embed(target, embeddingInputs(input.input), { ...context('embeddings'), ...(input.dimensions ? { dimensions: input.dimensions } : {}) })
        return sendJson(res, 200, embeddingsResponse(result, input.model, input.encoding_format ?? 'float'))
      }
    }
  }

  async function listModels(res: ServerResponse, key: StoredApiKey, config: GatewayAccessConfig): Promise<void> {
    const models = await options.backend.models()
    const created = Math.floor(Date.now() / 1000)
    const data = [
      ...models.filter((m) => modelAllowed(key, [m.id])).map((m) => ({ id: m.id, object: 'model', created, owned_by: m.providerId })),
      ...Object.entries(config.aliases)
        .filter(([alias, id]) => modelAllowed(key, [alias, id]))
        .map(([alias, id]) => ({ id: alias, object: 'model', created, owned_by: id.split('/')[0] ?? 'switchboard' }))
    ]
    sendJson(res, 200, { object: 'list', data })
  }

  function resolve(model: string, key: StoredApiKey, config: GatewayAccessConfig): GatewayTarget {
    // An own property only: `constructor` or `toString` is not an alias found on the prototype.
    const aliased = Object.hasOwn(config.aliases, model) ? config.aliases[model] : undefined
    const id = aliased ?? model
    const slash = id.indexOf('/')
    if (slash <= 0 || slash === id.length - 1) {
      throw new GatewayError('not_found', `The model ${JSON.stringify(model)} is not known here: use provider/model (GET /v1/models lists them) or an alias from Settings → Local API.`, 'model')
    }
    if (!modelAllowed(key, aliased ? [model, id] : [id])) throw new GatewayError('permission', `The key "${key.name}" may not use ${model}.`, 'model')
    return { providerId: id.slice(0, slash), modelId: id.slice(slash + 1) }
  }

  async function admitted(model: string, key: StoredApiKey, config: GatewayAccessConfig): Promise<GatewayTarget> {
    const target = resolve(model, key, config)
    await options.backend.admit(target)
    return target
  }

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => {
      server.off('error', reject)
      resolveListen()
    })
  })
  const address = server.address() as AddressInfo
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return {
    url: `http://${shownHost}:${address.port}`,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done())
        server.closeAllConnections()
      })
  }
}

function parse<T>(schema: ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]!
  const path = issue.path.join('.')
  throw GatewayError.invalid(`${path ? `${path}: ` : ''}${issue.message}`, path || undefined)
}

async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? NaN)
  if (declared > limit) {
    req.resume()
    throw new GatewayError('too_large', `The request body is ${declared} bytes; the local API takes at most ${limit}.`)
  }
  const type = req.headers['content-type'] ?? ''
  if (!/^application\/json\b/i.test(type)) throw GatewayError.invalid('Send the body as JSON (Content-Type: application/json).')
  const chunks: Buffer[] = []
  let size = 0
  const depth = new JsonDepthGuard()
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > limit) throw unread(req, new GatewayError('too_large', `The request body is over ${limit} bytes, the most the local API takes.`))
    if (!depth.push(chunk)) {
      throw unread(req, GatewayError.invalid(`The body nests JSON objects and arrays deeper than ${depth.limit} levels, which no real request does (a tool's parameters schema is a few). Flatten it.`))
    }
    chunks.push(chunk)
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'))
  } catch {
    throw GatewayError.invalid('The body is not valid JSON.')
  }
}

/** Requests refused before their body was read in full: their connection is not kept. */
const halfRead = new WeakSet<IncomingMessage>()

/**
 * Refused in the middle of the body: the rest is not read, so the connection cannot carry another
 * request (its next bytes are this body's). The answer closes it rather than draining the rest.
 */
function unread(req: IncomingMessage, error: GatewayError): GatewayError {
  halfRead.add(req)
  return error
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}

function sendError(res: ServerResponse, api: Api, error: GatewayError): void {
  if (res.headersSent) {
    res.destroy()
    return
  }
  if (error.retryAfter) res.setHeader('retry-after', String(error.retryAfter))
  if (halfRead.has(res.req)) res.setHeader('connection', 'close')
  sendJson(res, error.status, api === 'anthropic' ? anthropicError(error) : openAIError(error))
}

/**
 * Reads events until the first one that says something (text, a tool call, a stop, an error),
 * so an upstream that fails at once is answered with an HTTP error instead of a 200 stream.
 */
async function firstEvents(events: AsyncIterable<StreamEvent>): Promise<{ head: StreamEvent[]; rest: AsyncIterator<StreamEvent> }> {
  const iterator = events[Symbol.asyncIterator]()
  const head: StreamEvent[] = []
  for (;;) {
    const next = await iterator.next()
    if (next.done) return { head, rest: iterator }
    head.push(next.value)
    if (next.value.type === 'error') {
      // Closing the iterator lets the backend finish its call (and log it) before the answer.
      await iterator.return?.()
      throw GatewayError.fromAppError(next.value.data)
    }
    if (next.value.type !== 'retry' && next.value.type !== 'speed') return { head, rest: iterator }
  }
}

/**
 * Calls `each` for the head, then for the rest, until it returns true (the stream is over) or
 * the events end; a consumer that stops early (an error, a client gone) closes the backend's
 * call. A loop rather than a generator: every layer of async iteration costs each event of a
 * long reply another hop; batches (`nextBatch`) when the backend offers them. `each` returns a
 * promise only when it has to wait (a slow client).
 */
async function eachEvent(head: StreamEvent[], rest: AsyncIterator<StreamEvent>, each: (event: StreamEvent) => boolean | Promise<void> | undefined): Promise<void> {
  let finished = false
  try {
    for (const event of head) {
      const outcome = each(event)
      if (outcome === true) return
      if (outcome) await outcome
    }
    if (hasBatches<StreamEvent>(rest)) {
      // The events of a whole network read at once: one await per batch instead of one per event.
      for (;;) {
        const next = await rest.nextBatch()
        if (next.done) {
          finished = true
          return
        }
        const events = next.value
        for (let i = 0; i < events.length; i++) {
          const outcome = each(events[i]!)
          if (outcome === true) return
          if (outcome) await outcome
        }
      }
    }
    for (;;) {
      const next = await rest.next()
      if (next.done) {
        finished = true
        return
      }
      const outcome = each(next.value)
      if (outcome === true) return
      if (outcome) await outcome
    }
  } finally {
    if (!finished) await rest.return?.()
  }
}

/** The SSE writer's buffer to start with; it grows for a busy macrotask. */
const SSE_BUFFER_BYTES = 16 * 1024
/** Written at once, before the macrotask ends, and waited for when the socket is full. */
const SSE_FLUSH_BYTES = 256 * 1024

/**
 * An SSE writer that gathers the events of one macrotask into one socket write (a 200,000-chunk
 * stream would otherwise be 200,000 writes), and waits for the socket when the client is slow.
 * Messages are encoded straight into one buffer as they come, not kept as strings to be joined
 * and encoded again at the end of the macrotask; `framed` copies prepared bytes around a string.
 */
class SseWriter {
  private buffer = Buffer.allocUnsafe(SSE_BUFFER_BYTES)
  private used = 0
  private scheduled = false

  constructor(private readonly res: ServerResponse) {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' })
  }

  private readonly flushSoon = (): void => {
    this.flush()
  }

  private flush(): boolean {
    this.scheduled = false
    if (this.used === 0 || this.res.destroyed) return true
    const out = this.buffer.subarray(0, this.used)
    // The socket may hold on to those bytes until they are sent: the next ones go to a new buffer.
    this.buffer = Buffer.allocUnsafe(Math.max(SSE_BUFFER_BYTES, Math.min(this.used, SSE_FLUSH_BYTES)))
    this.used = 0
    return this.res.write(out)
  }

  /** Room for `bytes` more. */
  private room(bytes: number): void {
    if (this.used + bytes <= this.buffer.length) return
    const bigger = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.used + bytes))
    this.buffer.copy(bigger, 0, 0, this.used)
    this.buffer = bigger
  }

  /** Queues one SSE message; a promise only when the socket is full (then wait for it). */
  write(text: string): Promise<void> | undefined {
    if (this.res.destroyed) return undefined
    // At most three bytes of UTF-8 per UTF-16 unit.
    this.room(text.length * 3)
    this.used += this.buffer.write(text, this.used)
    return this.queued()
  }

  /** Queues one SSE message made of prepared bytes, a string, and prepared bytes. */
  framed(open: Uint8Array, text: string, close: Uint8Array): Promise<void> | undefined {
    if (this.res.destroyed) return undefined
    this.room(open.length + text.length * 3 + close.length)
    this.buffer.set(open, this.used)
    this.used += open.length
    this.used += this.buffer.write(text, this.used)
    this.buffer.set(close, this.used)
    this.used += close.length
    return this.queued()
  }

  private queued(): Promise<void> | undefined {
    if (!this.scheduled) {
      this.scheduled = true
      setImmediate(this.flushSoon)
    }
    if (this.used < SSE_FLUSH_BYTES) return undefined
    if (this.flush()) return undefined
    return new Promise<void>((resolve) => {
      const done = (): void => {
        this.res.off('drain', done)
        this.res.off('close', done)
        resolve()
      }
      this.res.once('drain', done)
      this.res.once('close', done)
    })
  }

  data(value: unknown): Promise<void> | undefined {
    return this.write(`data: ${JSON.stringify(value)}\n\n`)
  }

  event(name: string, value: unknown): Promise<void> | undefined {
    return this.write(`event: ${name}\ndata: ${JSON.stringify(value)}\n\n`)
  }

  /** The last bytes go with the end of the response: one socket write, not one for them and one for the chunked ending. */
  end(): void {
    this.scheduled = false
    if (this.res.destroyed) return
    const out = this.used > 0 ? this.buffer.subarray(0, this.used) : undefined
    this.used = 0
    if (out) this.res.end(out)
    else this.res.end()
  }
}

const completionId = (): string => `chatcmpl-${randomBytes(12).toString('hex')}`

async function streamChatCompletion(res: ServerResponse, events: AsyncIterable<StreamEvent>, model: string, includeUsage: boolean): Promise<void> {
  const { head, rest } = await firstEvents(events)
  const sse = new SseWriter(res)
  const chunks = new ChatCompletionChunks(completionId(), model, Math.floor(Date.now() / 1000), includeUsage)
  let failed: StreamEvent | undefined
  await eachEvent(head, rest, (event) => {
    // Nearly every event of a long reply: its escaped text between prepared bytes, no array, no await.
    const text = chunks.textJson(event)
    if (text !== undefined) return sse.framed(chunks.textOpen, text, chunks.textClose)
    if (event.type === 'error') {
      failed = event
      return true
    }
    return writeAll(sse, chunks.push(event).map((chunk) => `data: ${chunk}\n\n`))
  })
  if (failed?.type === 'error') {
    // OpenAI's SDK raises an APIError for a `data: {"error": …}` line.
    await sse.data(openAIError(GatewayError.fromAppError(failed.data)))
    sse.end()
    return
  }
  await writeAll(sse, chunks.finish().map((chunk) => `data: ${chunk}\n\n`))
  await sse.write('data: [DONE]\n\n')
  sse.end()
}

/** Writes SSE messages in order; a promise only when one of them had to wait for the socket. */
function writeAll(sse: SseWriter, messages: string[]): Promise<void> | undefined {
  for (let i = 0; i < messages.length; i++) {
    const wait = sse.write(messages[i]!)
    if (wait) return wait.then(() => writeAll(sse, messages.slice(i + 1)))
  }
  return undefined
}

async function answerChatCompletion(res: ServerResponse, events: AsyncIterable<StreamEvent>, model: string): Promise<void> {
  const collector = new ChatCompletionCollector()
  for await (const event of events) {
    if (event.type === 'error') throw GatewayError.fromAppError(event.data)
    collector.push(event)
  }
  sendJson(res, 200, collector.result(completionId(), model, Math.floor(Date.now() / 1000)))
}

async function streamResponses(res: ServerResponse, events: AsyncIterable<StreamEvent>, encoder: ResponsesEvents): Promise<void> {
  const { head, rest } = await firstEvents(events)
  const sse = new SseWriter(res)
  const send = (list: Array<Record<string, unknown>>): Promise<void> | undefined => writeAll(sse, list.map((e) => `event: ${e['type'] as string}\ndata: ${JSON.stringify(e)}\n\n`))
  await send(encoder.start())
  let failed: StreamEvent | undefined
  await eachEvent(head, rest, (event) => {
    if (event.type !== 'error') return send(encoder.push(event))
    failed = event
    return true
  })
  if (failed?.type === 'error') {
    const failure = GatewayError.fromAppError(failed.data)
    await send(encoder.fail(openAIError(failure).error.type, failure.message))
    sse.end()
    return
  }
  await send(encoder.finish())
  sse.end()
}

async function answerResponses(res: ServerResponse, events: AsyncIterable<StreamEvent>, encoder: ResponsesEvents): Promise<void> {
  for await (const event of events) {
    if (event.type === 'error') throw GatewayError.fromAppError(event.data)
    encoder.push(event)
  }
  const done = encoder.finish()
  sendJson(res, 200, done[done.length - 1]!['response'])
}

async function streamAnthropic(res: ServerResponse, events: AsyncIterable<StreamEvent>, encoder: AnthropicMessageEvents): Promise<void> {
  const { head, rest } = await firstEvents(events)
  const sse = new SseWriter(res)
  const send = (list: AnthropicEvent[]): Promise<void> | undefined => writeAll(sse, list.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`))
  await send(encoder.start())
  let failed: StreamEvent | undefined
  await eachEvent(head, rest, (event) => {
    if (event.type !== 'error') return send(encoder.push(event))
    failed = event
    return true
  })
  if (failed?.type === 'error') {
    await sse.event('error', anthropicError(GatewayError.fromAppError(failed.data)))
    sse.end()
    return
  }
  await send(encoder.finish())
  sse.end()
}

async function answerAnthropic(res: ServerResponse, events: AsyncIterable<StreamEvent>, encoder: AnthropicMessageEvents): Promise<void> {
  const list: AnthropicEvent[] = [...encoder.start()]
  for await (const event of events) {
    if (event.type === 'error') throw GatewayError.fromAppError(event.data)
    list.push(...encoder.push(event))
  }
  list.push(...encoder.finish())
  sendJson(res, 200, collectAnthropicMessage(list))
}

export type { ChatRequest }
