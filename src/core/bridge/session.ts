import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { ClientMessage, ServerMessage } from '../../shared/bridge/protocol'
import { BridgeErrorType, type AppError } from '../../shared/errors/app-error'
import type { ContractShape } from '../../shared/bridge/define'
import type { Router } from './router'
import { toAppError } from './to-app-error'

export interface AccessPolicy {
  /** When set, a connection must authenticate with this password (or a session key) first. */
  password?: string
  /** Session keys handed out after a correct password; shared across connections. */
  sessionKeys: Set<string>
}

export const INVALID_ACCESS_CODE_MESSAGE =
  'The password is wrong or empty. Enter the access password set for this Switchboard, or add your own API key in Settings.'

/** Answered before authentication: the page needs to know that it must ask for the password. */
const PUBLIC_PROCEDURES = new Set(['app.info'])

const equalSecret = (a: string, b: string) => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/**
 * One connected client (a window, a socket). Speaks the protocol of shared/bridge/protocol.ts
 * on top of the router. Closing a session detaches its subscriptions but never cancels a
 * stream: the core owns streams.
 */
export class BridgeSession<C extends ContractShape> {
  private readonly subscriptions = new Map<number, () => void>()
  private readonly calls = new Set<AbortController>()
  private authenticated: boolean
  private closed = false

  constructor(
    private readonly router: Router<C>,
    private readonly send: (message: ServerMessage) => void,
    private readonly access?: AccessPolicy,
    preAuthenticated = false
  ) {
    this.authenticated = preAuthenticated || !access?.password
  }

  receive(message: ClientMessage): void {
    if (this.closed || typeof message !== 'object' || message === null) return
    try {
      this.dispatch(message)
    } catch (error) {
      // Last line of defence: whatever slipped past the router is this caller's error, and the
      // process (which serves every other window and stream) stays up.
      const appError = toAppError(error)
      const id = (message as { id?: unknown }).id
      if (typeof id !== 'number') return
      if (message.t === 'call') this.safeSend({ t: 'result', id, result: { ok: false, error: appError } })
      else if (message.t === 'start' || message.t === 'attach') this.safeSend({ t: 'refused', id, error: appError })
    }
  }

  private dispatch(message: ClientMessage): void {
    if (message.t === 'auth') return this.authenticate(message)
    if (!this.authenticated && !(message.t === 'call' && PUBLIC_PROCEDURES.has(message.proc))) {
      const error: AppError = { errorType: BridgeErrorType.Unauthorized, status: 401, message: INVALID_ACCESS_CODE_MESSAGE }
      if (message.t === 'call') this.send({ t: 'result', id: message.id, result: { ok: false, error } })
      else if (message.t === 'start' || message.t === 'attach') this.send({ t: 'refused', id: message.id, error })
      return
    }
    switch (message.t) {
      case 'call': {
        const controller = new AbortController()
        this.calls.add(controller)
        void this.router
          .call(message.proc, message.input, controller.signal)
          .catch((error: unknown) => ({ ok: false as const, error: toAppError(error) }))
          .then((result) => {
            this.calls.delete(controller)
            this.safeSend({ t: 'result', id: message.id, result })
          })
        return
      }
      case 'start': {
        const started = this.router.start(message.proc, message.input)
        if (!started.ok) return this.safeSend({ t: 'refused', id: message.id, error: started.error })
        this.safeSend({ t: 'started', id: message.id, sid: started.value })
        return this.subscribe(message.id, started.value, 0)
      }
      case 'attach': {
        this.safeSend({ t: 'started', id: message.id, sid: message.sid })
        return this.subscribe(message.id, message.sid, message.from)
      }
      case 'detach': {
        this.subscriptions.get(message.id)?.()
        this.subscriptions.delete(message.id)
        return
      }
      case 'cancel': {
        this.router.hub.cancel(message.sid)
        return
      }
    }
  }

  private subscribe(id: number, sid: string, from: number): void {
    this.subscriptions.get(id)?.()
    let ended = false
    const attached = this.router.hub.attach(sid, Math.max(0, Number(from) || 0), {
      events: (events, start) => this.safeSend({ t: 'events', id, from: start, events }),
      end: (result) => {
        ended = true
        this.subscriptions.delete(id)
        this.safeSend({ t: 'end', id, result })
      }
    })
    if (!attached.ok) return this.safeSend({ t: 'refused', id, error: attached.error })
    if (!ended) this.subscriptions.set(id, attached.value)
  }

  private authenticate(message: Extract<ClientMessage, { t: 'auth' }>): void {
    const password = this.access?.password
    if (!password) {
      this.safeSend({ t: 'auth', id: message.id, result: { ok: true, value: { sessionKey: '' } } })
      return
    }
    const keys = this.access!.sessionKeys
    if (typeof message.sessionKey === 'string' && message.sessionKey && keys.has(message.sessionKey)) {
      this.authenticated = true
      this.safeSend({ t: 'auth', id: message.id, result: { ok: true, value: { sessionKey: message.sessionKey } } })
      return
    }
    if (typeof message.password === 'string' && message.password && equalSecret(message.password, password)) {
      const sessionKey = randomBytes(24).toString('base64url')
      keys.add(sessionKey)
      this.authenticated = true
      this.safeSend({ t: 'auth', id: message.id, result: { ok: true, value: { sessionKey } } })
      return
    }
    const error: AppError = { errorType: BridgeErrorType.Unauthorized, status: 401, message: INVALID_ACCESS_CODE_MESSAGE }
    // Slow down guessing: answer a wrong password after a short pause.
    setTimeout(() => this.safeSend({ t: 'auth', id: message.id, result: { ok: false, error } }), 400)
  }

  private safeSend(message: ServerMessage): void {
    if (this.closed) return
    try {
      this.send(message)
    } catch {
      this.close()
    }
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    for (const unsubscribe of this.subscriptions.values()) unsubscribe()
    this.subscriptions.clear()
    for (const controller of this.calls) controller.abort()
    this.calls.clear()
  }
}
