import { AppErrorException } from '../shared/errors/app-error'
import { notReady, sentence } from './bridge/not-ready'
import type { InitService } from './services/init-service'
import type { Services } from './root'

import { isUnavailable, type Unavailable } from './unavailable'

export { unavailable, isUnavailable, type Unavailable } from './unavailable'

type Usable<T> = Exclude<T, Unavailable>

/**
 * The one way a handler reaches a service. The root builds the whole graph once start-up has
 * opened the store; before that (or after start-up failed) a call gets the truthful not-ready
 * error, and a part that could not start gets its reason.
 */
export class ServiceAccess {
  private current: Services | undefined
  /** What start-up has opened so far (the store answers while the keychain probe still runs). */
  private early: Partial<Services> = {}
  /** Parts that need no store (the engine, the model library): they answer in every start-up state. */
  private standing: Partial<Services> = {}

  constructor(private readonly init: () => Pick<InitService, 'state'>) {}

  /** Set once by the core, before start-up: the parts built without the store. */
  stand(parts: Partial<Services>): void {
    this.standing = { ...parts }
  }

  /** The service, or the error a caller should see while it cannot be used. */
  get<K extends keyof Services>(key: K, what: string): Usable<Services[K]> {
    const part = this.current ? this.current[key] : (this.early[key] ?? this.standing[key])
    if (part === undefined) throw notReady({ init: this.init() }, what)
    if (isUnavailable(part))
      throw new AppErrorException({ errorType: 'DataNotReady', status: 503, message: `${what} is not available: ${sentence(part.reason)}.` })
    return part as Usable<Services[K]>
  }

  /** The whole graph, or the not-ready error before start-up built it (tests reach past the bridge with it). */
  all(what: string): Services {
    if (!this.current) throw notReady({ init: this.init() }, what)
    return this.current
  }

  /** The whole graph once built (shutdown, tests); undefined before start-up built it. */
  built(): Services | undefined {
    return this.current
  }

  /** Parts opened before the graph is built (the store, before the keychain answers). */
  provide(parts: Partial<Services>): void {
    this.early = { ...parts }
  }

  /** Set by the root's start-up step; cleared before a retried start-up builds a new graph. */
  set(services: Services | undefined): void {
    this.current = services
    this.early = {}
  }
}

/**
 * The one not-ready guard of the handlers: a getter for a service that throws the truthful
 * not-ready error while it cannot be used (`const chat = needs(ctx, 'chat', 'Chat')`).
 */
export function needs<K extends keyof Services>(ctx: { services: ServiceAccess }, key: K, what: string): () => Usable<Services[K]> {
  return () => ctx.services.get(key, what)
}
