import type { z } from 'zod'
import { BridgeErrorType, type AppError, type Result } from '../../shared/errors/app-error'
import type {
  CallDef,
  CallNames,
  ContractShape,
  EventOf,
  OutputOf,
  ParsedInputOf,
  StreamDef,
  StreamNames,
  StreamResultOf
} from '../../shared/bridge/define'
import { StreamHub } from './stream-hub'
import { toAppError } from './to-app-error'

export interface CallContext {
  /** Aborted when the caller goes away (calls) or cancels (streams). */
  signal: AbortSignal
  /** For stream handlers: the hub's id of this stream, so a service can list what is running. */
  streamId?: string
}

export type Implementation<C extends ContractShape> = {
  [K in CallNames<C>]: (input: ParsedInputOf<C[K]>, ctx: CallContext) => Promise<OutputOf<C[K]>> | OutputOf<C[K]>
} & {
  [K in StreamNames<C>]: (
    input: ParsedInputOf<C[K]>,
    ctx: CallContext
  ) => AsyncIterator<EventOf<C[K]>, StreamResultOf<C[K]>> | AsyncIterable<EventOf<C[K]>>
}

/** Turns a zod failure into a message that names the field and what was wrong. */
export function validationError(proc: string, error: z.ZodError): AppError {
  const issues = error.issues.map((issue) => {
    const path = issue.path.length > 0 ? issue.path.join('.') : '(input)'
    return { path, message: issue.message }
  })
  const first = issues[0]
  return {
    errorType: BridgeErrorType.Validation,
    status: 400,
    message: first ? `Invalid input for ${proc}: ${first.path}: ${first.message}` : `Invalid input for ${proc}`,
    detail: { issues }
  }
}

/**
 * The one place that implements the contract: validates every input with its schema,
 * runs the handler, and hands stream handlers to the hub. Transports talk to this.
 */
export class Router<C extends ContractShape> {
  readonly hub: StreamHub

  constructor(
    readonly contract: C,
    private readonly impl: Implementation<C>,
    hub?: StreamHub
  ) {
    this.hub = hub ?? new StreamHub()
  }

  private parse(proc: string, kind: 'call' | 'stream', input: unknown): Result<{ parsed: unknown; handler: unknown }> {
    const def = Object.hasOwn(this.contract, proc) ? this.contract[proc] : undefined
    const handler = def ? (this.impl as Record<string, unknown>)[proc] : undefined
    if (!def || def.kind !== kind || typeof handler !== 'function') {
      return {
        ok: false,
        error: { errorType: BridgeErrorType.UnknownProcedure, status: 404, message: `No ${kind} procedure is named ${JSON.stringify(proc)}.` }
      }
    }
    const parsed = (def as CallDef | StreamDef).input.safeParse(input)
    if (!parsed.success) return { ok: false, error: validationError(proc, parsed.error) }
    return { ok: true, value: { parsed: parsed.data, handler } }
  }

  async call(proc: string, input: unknown, signal: AbortSignal = new AbortController().signal): Promise<Result<unknown>> {
    const found = this.parse(proc, 'call', input)
    if (!found.ok) return found
    try {
      // Sync throws and rejections alike land in the catch: a handler never takes the core down.
      const handler = found.value.handler as (i: unknown, c: CallContext) => unknown
      const value = await handler(found.value.parsed, { signal })
      return { ok: true, value: value === undefined ? null : value }
    } catch (error) {
      return { ok: false, error: toAppError(error) }
    }
  }

  /**
   * Validates and starts a stream in the hub; returns its id. A handler that throws before
   * producing its iterator (its service does not exist yet, a bad argument checked eagerly)
   * is refused with that error: nothing a handler throws may reach the transport.
   */
  start(proc: string, input: unknown): Result<string> {
    const found = this.parse(proc, 'stream', input)
    if (!found.ok) return found
    const handler = found.value.handler as (i: unknown, c: CallContext) => AsyncIterator<unknown> | AsyncIterable<unknown>
    try {
      const sid = this.hub.start(proc, (signal, streamId) => {
        const produced = handler(found.value.parsed, { signal, streamId })
        if (produced !== null && typeof produced === 'object' && Symbol.asyncIterator in produced) return (produced as AsyncIterable<unknown>)[Symbol.asyncIterator]()
        if (produced !== null && typeof produced === 'object' && typeof (produced as AsyncIterator<unknown>).next === 'function') return produced as AsyncIterator<unknown>
        throw new Error(`The handler of ${proc} did not return a stream.`)
      })
      return { ok: true, value: sid }
    } catch (error) {
      return { ok: false, error: toAppError(error) }
    }
  }
}
