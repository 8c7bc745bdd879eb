import type { CostBreakdown } from '../../shared/data/cost'
import type { UsageKind, UsageLocation, UsageMode, UsageOperation, UsageScene } from '../../shared/data/usage-log'
import type { UsageRecord } from '../../shared/stream/usage'
import type { CallOptions, ProviderRuntime } from '../runtime/types'
import type { ModelRef } from '../chat/scenes'

/** What a usage line says about a call besides its numbers: what it was for and who made it. */
export interface CallMeta {
  /** Where the spend is logged (Usage). */
  scene: UsageScene
  operation?: UsageOperation
  mode?: UsageMode
  location?: UsageLocation
  conversationId?: string
  messageId?: string
  /** The local API key that made the call. */
  apiKeyId?: string
}

/** One line of the usage log, as the caller writes it. */
export interface UsageEntry extends CallMeta {
  kind: UsageKind
  providerId: string
  modelId: string
  usage?: UsageRecord
  cost?: CostBreakdown
  durationMs?: number
}

/** What a call's provider step is handed: the model it runs on and the options the layers set. */
export interface CallContext {
  model: ModelRef
  /** The provider's runtime with the user's credentials (not every kind needs it: rerank has no runtime). */
  runtime(): Promise<ProviderRuntime>
  /** Signal (the caller's and the call's time limit), retries and idle timeout for the runtime. */
  options: CallOptions
}

/**
 * A call that is not a chat stream (an embedding, a rerank, speech in or out, an image): one
 * request, one answer. Its kind and scene name its usage line; `measure` says what the answer
 * billed, which the catalogue's pricing of the model prices (per token, character or second).
 */
export interface OneCall<T> extends CallMeta {
  kind: Exclude<UsageKind, 'chat'>
  /** The model to run; a scene's model from Settings wins, as for a chat call. */
  target: ModelRef
  signal?: AbortSignal
  /** Runtime options (retries before the first byte, idle timeout). */
  call?: Omit<CallOptions, 'signal'>
  /** Longest the whole call may take (ms): past it the call is cancelled and fails. */
  timeoutMs?: number
  /** The provider step itself. */
  invoke(context: CallContext): Promise<T>
  /** What the answer billed (tokens, characters, seconds); undefined when the provider does not say. */
  measure?(result: T): UsageRecord | undefined
  /** A price the token pricing does not give (an image is priced per image by its own calculator). */
  price?(result: T): CostBreakdown | undefined
}

/** What a call ended with: the provider's answer, the model that ran, what it billed and cost. */
export interface Metered<T> {
  result: T
  model: ModelRef
  usage?: UsageRecord
  cost?: CostBreakdown
  durationMs: number
}

/** The next layer down, ending with the provider step. */
export type CallNext = <T>(call: OneCall<T>, model: ModelRef) => Promise<Metered<T>>

/**
 * A layer a call passes through on its way to the provider, in the manner of the AI SDK's
 * model middleware: it may change the call (a time limit), watch its answer (pricing, the
 * usage log) or try again. A new kind of call is its `OneCall` description, not a new copy
 * of these.
 */
export type CallLayer = <T>(call: OneCall<T>, model: ModelRef, next: CallNext) => Promise<Metered<T>>

/** The layers in order, outermost first, around the provider step. */
export function composeLayers(layers: readonly CallLayer[], step: CallNext): CallNext {
  return layers.reduceRight<CallNext>((next, layer) => (call, model) => layer(call, model, next), step)
}

/** The call's own time limit joined to the caller's signal. */
export const timeoutLayer: CallLayer = (call, model, next) => {
  if (!call.timeoutMs) return next(call, model)
  const limit = AbortSignal.timeout(call.timeoutMs)
  return next({ ...call, signal: call.signal ? AbortSignal.any([call.signal, limit]) : limit }, model)
}

/**
 * Prices the answer and writes its usage line. A call that failed billed nothing the provider
 * told us about and writes no line (a chat stream, which may fail after billing, is logged by
 * the caller's stream bookkeeping instead).
 */
export function meterLayer(deps: {
  price(providerId: string, modelId: string, usage: UsageRecord): Promise<CostBreakdown | undefined>
  log(entry: UsageEntry): void
}): CallLayer {
  return async (call, model, next) => {
    const done = await next(call, model)
    const usage = call.measure?.(done.result)
    const cost = call.price ? call.price(done.result) : usage ? await deps.price(model.providerId, model.modelId, usage).catch(() => undefined) : undefined
    deps.log({ ...metaOf(call), kind: call.kind, providerId: model.providerId, modelId: model.modelId, durationMs: done.durationMs, ...(usage ? { usage } : {}), ...(cost ? { cost } : {}) })
    return { ...done, ...(usage ? { usage } : {}), ...(cost ? { cost } : {}) }
  }
}

/** The scene and the rest of a usage line's labels, without empty fields. */
export function metaOf(meta: CallMeta): CallMeta {
  return {
    scene: meta.scene,
    ...(meta.operation ? { operation: meta.operation } : {}),
    ...(meta.mode ? { mode: meta.mode } : {}),
    ...(meta.location ? { location: meta.location } : {}),
    ...(meta.conversationId ? { conversationId: meta.conversationId } : {}),
    ...(meta.messageId ? { messageId: meta.messageId } : {}),
    ...(meta.apiKeyId ? { apiKeyId: meta.apiKeyId } : {})
  }
}
