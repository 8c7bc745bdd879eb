import type { AppError } from '../../../shared/errors/app-error'
import type { StreamEvent } from '../../../shared/stream/events'
import { isAbortError, isConnectionError } from '../errors/map-provider-error'
import { backoffMs, retryDecision, sleep } from '../retry'
import { CANCELLED_MESSAGE, runtimeError } from '../runtime-error'
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_RETRIES, DEFAULT_RETRY_AFTER_CAP_MS, type CallOptions } from '../types'
import { IdleWatchdog } from './idle-watchdog'
import { SpeedTracker } from './speed-tracker'
import { hasReady, type EventBatches } from './event-batches'

/** The exact text providers.md §8 gives for an unparsable chunk. */
export const STREAM_CHUNK_ERROR_MESSAGE = 'chat response streaming chunk parse error, please contact your API Provider to fix it.'

/** Thrown by a transformer for a chunk it cannot read; becomes StreamChunkError. */
export class ChunkParseError extends Error {
  constructor(message: string, readonly chunk?: unknown) {
    super(message)
    this.name = 'ChunkParseError'
  }
}

/** Turns one wire chunk into events. Push events with `emit`; throw ChunkParseError for a bad chunk. */
export interface ChunkTransformer<C> {
  transform(chunk: C, emit: (event: StreamEvent) => void): void
  /** End of the wire stream: release held-back text, the last usage … */
  flush?(emit: (event: StreamEvent) => void): void
}

export interface ChatStreamSource<C> {
  provider: string
  options?: CallOptions
  /**
   * Opens the wire stream. Called again for a retry, which only happens before the first chunk.
   * Call `activity` whenever bytes arrive (keep-alives included) to feed the idle watchdog.
   */
  open(signal: AbortSignal, activity: () => void): Promise<AsyncIterable<C>>
  transformer: ChunkTransformer<C>
  mapError(error: unknown, aborted: boolean): AppError
  /** Whether the wire's end marker (`[DONE]`, message_stop …) arrived; asked when no `stop` was emitted. */
  sawEndMarker(): boolean
  /** Monotonic clock, overridable for tests. */
  now?: () => number
}

class IdleTimeout extends Error {
  constructor(readonly idleMs: number) {
    super(`No data for ${Math.round(idleMs / 1000)} s`)
    this.name = 'IdleTimeout'
  }
}

const CONTENT = new Set<StreamEvent['type']>(['text', 'reasoning', 'tool_calls', 'base64_image'])

/**
 * The robustness every provider stream shares (DESIGN §3): retries with a visible `retry`
 * event before the first chunk only; an idle watchdog between chunks; cancellation through
 * the caller's AbortSignal (→ ProviderBizError 'Request was cancelled', stop 'cancelled');
 * a chunk that does not parse → StreamChunkError; a stream that ends without its end marker
 * → stop 'interrupted' (text already emitted stays with the caller); exactly one `stop`;
 * `speed` last. Never throws.
 *
 * Iterated event by event like any stream; a consumer that can take the events of a whole
 * network read at once asks `nextBatch` (./event-batches).
 */
export function runChatStream<C>(source: ChatStreamSource<C>): ChatEventStream {
  return new ChatEventStream(chatBatches(source))
}

/** runChatStream's events: per event (`next`), or per batch of events ready together (`nextBatch`). */
export class ChatEventStream implements AsyncGenerator<StreamEvent, void, unknown>, EventBatches<StreamEvent, void> {
  private batch: StreamEvent[] = []
  private at = 0

  constructor(private readonly batches: AsyncGenerator<StreamEvent[], void, unknown>) {}

  [Symbol.asyncIterator](): this {
    return this
  }

  next(): Promise<IteratorResult<StreamEvent, void>> {
    if (this.at < this.batch.length) return Promise.resolve({ done: false, value: this.batch[this.at++]! })
    return this.batches.next().then(this.first)
  }

  nextBatch(): Promise<IteratorResult<StreamEvent[], void>> {
    if (this.at < this.batch.length) {
      const rest = this.at === 0 ? this.batch : this.batch.slice(this.at)
      this.batch = []
      this.at = 0
      return Promise.resolve({ done: false, value: rest })
    }
    return this.batches.next()
  }

  return(value?: void | PromiseLike<void>): Promise<IteratorResult<StreamEvent, void>> {
    this.batch = []
    this.at = 0
    return this.batches.return(value) as Promise<IteratorResult<StreamEvent, void>>
  }

  throw(error?: unknown): Promise<IteratorResult<StreamEvent, void>> {
    this.batch = []
    this.at = 0
    return this.batches.throw(error) as Promise<IteratorResult<StreamEvent, void>>
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.return()
  }

  private readonly first = (next: IteratorResult<StreamEvent[], void>): IteratorResult<StreamEvent, void> => {
    if (next.done) return next
    this.batch = next.value
    this.at = 1
    return { done: false, value: next.value[0]! }
  }
}

/** The stream as batches: every event the chunks of one network read produced, together (never an empty batch). */
async function* chatBatches<C>(source: ChatStreamSource<C>): AsyncGenerator<StreamEvent[], void, unknown> {
  const options = source.options ?? {}
  const userSignal = options.signal
  const now = source.now ?? (() => performance.now())
  const speed = new SpeedTracker(now(), now)
  const controller = new AbortController()
  const idleMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS
  const watchdog = new IdleWatchdog(idleMs, () => controller.abort(new IdleTimeout(idleMs)))
  const touch = () => watchdog.touch()
  const onUserAbort = () => controller.abort(userSignal?.reason)
  userSignal?.addEventListener('abort', onUserAbort, { once: true })
  if (userSignal?.aborted) controller.abort(userSignal.reason)

  let stopped = false
  let chunks = 0
  let finished = false
  const ending = (error: AppError, stop: string): StreamEvent[] => {
    stopped = true
    return [
      { type: 'error', data: error },
      { type: 'stop', data: stop }
    ]
  }
  const cancelled = () => ending(runtimeError('ProviderBizError', CANCELLED_MESSAGE, source.provider), 'cancelled')
  const idle = () =>
    ending(runtimeError('OperationInactivityTimeout', `No data from ${source.provider} for ${Math.round(idleMs / 1000)} s; the reply was interrupted.`, source.provider), 'interrupted')
  const failure = (error: unknown): StreamEvent[] => {
    if (controller.signal.reason instanceof IdleTimeout) return idle()
    if (userSignal?.aborted || isAbortError(error)) return cancelled()
    if (error instanceof ChunkParseError || error instanceof SyntaxError) {
      const detail = { reason: error.message }
      return ending(runtimeError('StreamChunkError', STREAM_CHUNK_ERROR_MESSAGE, source.provider, detail), 'error')
    }
    const mapped = source.mapError(error, false)
    // A connection that drops after chunks arrived is an interruption of a reply, not a refusal.
    if (chunks > 0 && isConnectionError(error)) {
      return ending(runtimeError('ProviderNetworkError', `The connection closed before the reply finished: ${mapped.message}`, source.provider), 'interrupted')
    }
    return ending(mapped, 'error')
  }

  let buffer: StreamEvent[] = []
  const emit = (event: StreamEvent) => {
    buffer.push(event)
  }
  /** Bookkeeping for one outgoing event; false drops it (a second stop). */
  const admit = (event: StreamEvent): boolean => {
    if (event.type === 'stop') {
      if (stopped) return false
      stopped = true
    } else if (CONTENT.has(event.type)) speed.content()
    else if (event.type === 'usage') speed.setOutputTokens(event.data.totalOutputTokens)
    return true
  }
  /** The events emitted so far that go out, taken from the buffer. */
  const drain = (): StreamEvent[] => {
    const events = buffer
    buffer = []
    let kept = 0
    for (let i = 0; i < events.length; i++) if (admit(events[i]!)) events[kept++] = events[i]!
    events.length = kept
    return events
  }
  const transform = (chunk: C): void => {
    chunks++
    try {
      source.transformer.transform(chunk, emit)
    } catch (error) {
      throw error instanceof ChunkParseError ? error : new ChunkParseError(error instanceof Error ? error.message : String(error), chunk)
    }
  }
  try {
    if (controller.signal.aborted) {
      yield cancelled()
      return
    }
    let iterable: AsyncIterable<C> | undefined
    const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES
    const cap = options.retryAfterCapMs ?? DEFAULT_RETRY_AFTER_CAP_MS
    for (let attempt = 0; iterable === undefined; attempt++) {
      try {
        iterable = await source.open(controller.signal, touch)
      } catch (error) {
        if (controller.signal.aborted) {
          yield failure(error)
          return
        }
        const decision = retryDecision(error)
        const wait = decision.retryAfterMs ?? backoffMs(attempt)
        if (!decision.retryable || attempt >= maxRetries || wait > cap) {
          yield failure(error)
          return
        }
        yield [
          {
            type: 'retry',
            data: {
              attempt: attempt + 1,
              maxAttempts: maxRetries,
              waitMs: Math.round(wait),
              reason: decision.reason,
              ...(decision.kind ? { kind: decision.kind } : {}),
              ...(decision.status !== undefined ? { status: decision.status } : {})
            }
          }
        ]
        watchdog.touch()
        try {
          await sleep(wait, controller.signal)
        } catch (abortError) {
          yield failure(abortError)
          return
        }
        watchdog.touch()
      }
    }

    // A source that has read more chunks than it handed out (the SSE decoder, per network read) gives them at once.
    const ready = hasReady<C>(iterable) ? iterable : undefined
    try {
      for await (const chunk of iterable) {
        watchdog.touch()
        // The hot path: one batch per network read, no generator step per chunk (a 200,000-chunk stream feels each one).
        transform(chunk)
        if (ready) {
          const more = ready.ready()
          for (let i = 0; i < more.length; i++) transform(more[i]!)
        }
        if (buffer.length) {
          const events = drain()
          if (events.length) yield events
        }
      }
      finished = true
    } finally {
      // Held-back text and the last usage belong to the caller even when the stream broke.
      source.transformer.flush?.(emit)
    }
    const rest = drain()
    // SDKs end their iteration quietly when their request is aborted: say why it ended.
    if (!stopped && controller.signal.aborted) {
      rest.push(...failure(controller.signal.reason))
    } else if (!stopped) {
      if (source.sawEndMarker()) {
        stopped = true
        rest.push({ type: 'stop', data: 'stop' })
      } else {
        rest.push(...ending(runtimeError('ProviderNetworkError', `The stream from ${source.provider} ended before the reply finished.`, source.provider), 'interrupted'))
      }
    }
    if (rest.length) yield rest
  } catch (error) {
    const rest = drain()
    if (!stopped) rest.push(...failure(error))
    if (rest.length) yield rest
  } finally {
    watchdog.stop()
    userSignal?.removeEventListener('abort', onUserAbort)
    if (!finished) controller.abort()
  }
  const result = speed.result()
  if (result) yield [{ type: 'speed', data: result }]
}

/** A transformer that knows whether the provider's end marker (message_stop, `done`…) arrived. */
export interface MarkedTransformer<C> extends ChunkTransformer<C> {
  sawEndMarker(): boolean
}

/**
 * The chat stream of a native adapter (Anthropic, Bedrock, Google, Ollama): its own transformer,
 * which tells when the wire's end marker came, its error mapping, and how to open the wire.
 */
export function nativeChatStream<C>(
  call: { provider: string; options?: CallOptions | undefined; mapError: ChatStreamSource<C>['mapError'] },
  transformer: MarkedTransformer<C>,
  open: ChatStreamSource<C>['open']
): ChatEventStream {
  return runChatStream<C>({ ...call, transformer, sawEndMarker: transformer.sawEndMarker, open } as ChatStreamSource<C>)
}
