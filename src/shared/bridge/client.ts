import { BridgeErrorType, type AppError, type Result } from '../errors/app-error'
import type {
  CallNames,
  ContractShape,
  EventOf,
  InputOf,
  OutputOf,
  StreamNames,
  StreamResultOf
} from './define'
import type { ClientMessage, MessagePort, ServerMessage } from './protocol'

export interface StreamHandlers<E, R> {
  onEvent?(event: E, seq: number): void
  /** Several events at once, as they arrived in one batch; called instead of onEvent when given. */
  onEvents?(events: E[], from: number): void
  onEnd?(result: Result<R>): void
  /** The stream could not be started or attached. */
  onRefused?(error: AppError): void
}

export interface StreamHandle {
  /** Resolves with the core's stream id once it is known; keep it to re-attach later. */
  readonly streamId: Promise<string>
  /** Stop listening; the stream keeps running in the core. */
  detach(): void
  /** Abort the stream in the core. */
  cancel(): void
}

export interface BridgeClient<C extends ContractShape> {
  call<K extends CallNames<C>>(proc: K, input: InputOf<C[K]>): Promise<Result<OutputOf<C[K]>>>
  stream<K extends StreamNames<C>>(
    proc: K,
    input: InputOf<C[K]>,
    handlers: StreamHandlers<EventOf<C[K]>, StreamResultOf<C[K]>>
  ): StreamHandle
  /** Join a stream that is already running (after a reload, say), from event `from` on. */
  attach<K extends StreamNames<C>>(
    proc: K,
    streamId: string,
    handlers: StreamHandlers<EventOf<C[K]>, StreamResultOf<C[K]>>,
    from?: number
  ): StreamHandle
  authenticate(credentials: { password?: string; sessionKey?: string }): Promise<Result<{ sessionKey: string }>>
  /** The transport reconnected: re-attach live subscriptions where they left off. */
  resume(): void
  /** The transport dropped: pending calls fail with BridgeDisconnected. */
  disconnected(): void
}

interface Subscription {
  sid?: string
  next: number
  handlers: StreamHandlers<unknown, unknown>
  resolveSid(sid: string): void
  rejectSid(error: AppError): void
  ended: boolean
}

const disconnectedError: AppError = {
  errorType: BridgeErrorType.Disconnected,
  message: 'The connection to the Switchboard core was lost. Reload the window to reconnect.'
}

export function createBridgeClient<C extends ContractShape>(
  port: MessagePort<ServerMessage, ClientMessage>
): BridgeClient<C> {
  let nextId = 1
  const pendingCalls = new Map<number, (result: Result<unknown>) => void>()
  const subscriptions = new Map<number, Subscription>()

  port.onMessage((message) => {
    switch (message.t) {
      case 'result':
      case 'auth': {
        const resolve = pendingCalls.get(message.id)
        pendingCalls.delete(message.id)
        resolve?.(message.result as Result<unknown>)
        return
      }
      case 'started': {
        const sub = subscriptions.get(message.id)
        if (!sub) return
        sub.sid = message.sid
        sub.resolveSid(message.sid)
        return
      }
      case 'events': {
        const sub = subscriptions.get(message.id)
        if (!sub || sub.ended) return
        // Drop what we already have (a re-attach may overlap); never skip ahead silently.
        let events = message.events
        let from = message.from
        if (from < sub.next) {
          events = events.slice(sub.next - from)
          from = sub.next
        }
        if (events.length === 0) return
        sub.next = from + events.length
        if (sub.handlers.onEvents) sub.handlers.onEvents(events, from)
        else events.forEach((event, i) => sub.handlers.onEvent?.(event, from + i))
        return
      }
      case 'end': {
        const sub = subscriptions.get(message.id)
        if (!sub) return
        subscriptions.delete(message.id)
        sub.ended = true
        sub.handlers.onEnd?.(message.result)
        return
      }
      case 'refused': {
        const sub = subscriptions.get(message.id)
        if (!sub) return
        subscriptions.delete(message.id)
        sub.ended = true
        sub.rejectSid(message.error)
        sub.handlers.onRefused?.(message.error)
        return
      }
    }
  })

  const request = <T>(build: (id: number) => ClientMessage): Promise<Result<T>> =>
    new Promise((resolve) => {
      const id = nextId++
      pendingCalls.set(id, resolve as (r: Result<unknown>) => void)
      try {
        port.send(build(id))
      } catch {
        pendingCalls.delete(id)
        resolve({ ok: false, error: disconnectedError })
      }
    })

  const subscribe = (
    handlers: StreamHandlers<unknown, unknown>,
    build: (id: number) => ClientMessage,
    knownSid?: string,
    from = 0
  ): StreamHandle => {
    const id = nextId++
    let resolveSid!: (sid: string) => void
    let rejectSid!: (error: AppError) => void
    const streamId = new Promise<string>((res, rej) => {
      resolveSid = res
      rejectSid = rej
    })
    streamId.catch(() => undefined) // a refused stream is reported through onRefused
    const sub: Subscription = { next: from, handlers, resolveSid, rejectSid, ended: false }
    if (knownSid) sub.sid = knownSid
    subscriptions.set(id, sub)
    port.send(build(id))
    return {
      streamId,
      detach() {
        if (!subscriptions.delete(id)) return
        sub.ended = true
        port.send({ t: 'detach', id })
      },
      cancel() {
        void streamId.then((sid) => port.send({ t: 'cancel', sid }))
      }
    }
  }

  return {
    call: (proc, input) => request((id) => ({ t: 'call', id, proc, input })),
    stream: (proc, input, handlers) =>
      subscribe(handlers as StreamHandlers<unknown, unknown>, (id) => ({ t: 'start', id, proc, input })),
    attach: (_proc, sid, handlers, from = 0) =>
      subscribe(handlers as StreamHandlers<unknown, unknown>, (id) => ({ t: 'attach', id, sid, from }), sid, from),
    authenticate: (credentials) => request((id) => ({ t: 'auth', id, ...credentials })),
    resume() {
      for (const [id, sub] of subscriptions) {
        if (sub.sid) port.send({ t: 'attach', id, sid: sub.sid, from: sub.next })
      }
    },
    disconnected() {
      for (const resolve of pendingCalls.values()) resolve({ ok: false, error: disconnectedError })
      pendingCalls.clear()
    }
  }
}
