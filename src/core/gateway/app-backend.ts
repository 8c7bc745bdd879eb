import { AppErrorException, type AppError } from '../../shared/errors/app-error'
import type { ProviderList, PickerModel } from '../../shared/bridge/procedures/providers'
import type { StreamEvent } from '../../shared/stream/events'
import type { ChatRequest } from '../runtime/types'
import type { CallEvent, CallInput, ModelCaller } from '../caller/model-caller'
import type { GatewayBackend, GatewayModel } from './backend'
import { GatewayError } from './gateway-error'
import { isUnavailable, type Unavailable } from '../unavailable'
import { hasBatches, type EventBatches } from '../runtime/stream/event-batches'
import { nativeApiOf } from '../runtime/registry'

/** What the gateway's backend uses of the app: the one model caller, the provider list and the usage ledger. */
export interface AppBackendDeps {
  caller: { run(input: CallInput): AsyncIterator<CallEvent, unknown> & AsyncIterable<CallEvent>; embed: ModelCaller['embed'] }
  providers: {
    list(options: { type?: 'chat' | 'image' }): Promise<ProviderList>
    models(providerId: string): Promise<PickerModel[]>
  }
  usage: { spentByKey(apiKeyId: string): { usd: number; calls: number; inputTokens?: number; cachedInputTokens?: number } }
  /** The built-in engine's own check of a listed name (`BuiltinEngine.listed`), or why there is no engine. */
  builtin: { listed(name: string): Promise<unknown> } | Unavailable
}

/** The built-in engine's provider id (its spec, `runtime/providers/builtin`). */
const BUILTIN = 'builtin'

const failure = (thrown: unknown, providerId: string): AppError =>
  thrown instanceof AppErrorException
    ? thrown.error
    : { errorType: 'AgentRuntimeError', status: 470, provider: providerId, message: thrown instanceof Error ? thrown.message : String(thrown) }

/**
 * A call's events as the gateway reads them: a thrown error becomes an `error` event (the
 * backend never throws), the app's own tool events are left out (no tools run for a client).
 * A thin iterator rather than a generator, so a long reply's events take no extra async hop;
 * it passes on the caller's batches (`nextBatch`) too.
 */
function callEvents(start: () => AsyncIterator<CallEvent, unknown>, providerId: string): AsyncIterable<StreamEvent> {
  let run: AsyncIterator<CallEvent, unknown> | undefined
  let over = false
  const end = (): IteratorReturnResult<undefined> => {
    over = true
    return { done: true, value: undefined }
  }
  const failed = (thrown: unknown): IteratorResult<StreamEvent> => {
    over = true
    return { done: false, value: { type: 'error', data: failure(thrown, providerId) } }
  }
  const step = (next: IteratorResult<CallEvent, unknown>): IteratorResult<StreamEvent> | Promise<IteratorResult<StreamEvent>> => {
    if (next.done) return end()
    const type = next.value.type
    if (type.startsWith('tool_') && type !== 'tool_calls') return iterator.next()
    return next as IteratorResult<StreamEvent>
  }
  const stepBatch = (next: IteratorResult<CallEvent[], unknown>): IteratorResult<StreamEvent[]> | Promise<IteratorResult<StreamEvent[]>> => {
    if (next.done) return end()
    const events = next.value.filter((event) => !event.type.startsWith('tool_') || event.type === 'tool_calls') as StreamEvent[]
    return events.length ? { done: false, value: events } : iterator.nextBatch()
  }
  const failedBatch = (thrown: unknown): IteratorResult<StreamEvent[]> => {
    const next = failed(thrown) as IteratorYieldResult<StreamEvent>
    return { done: false, value: [next.value] }
  }
  const iterator: AsyncIterator<StreamEvent> & EventBatches<StreamEvent> = {
    next() {
      if (over) return Promise.resolve(end())
      try {
        run ??= start()
        return run.next().then(step, failed)
      } catch (thrown) {
        return Promise.resolve(failed(thrown))
      }
    },
    nextBatch() {
      if (over) return Promise.resolve(end())
      try {
        run ??= start()
        if (!hasBatches<CallEvent>(run)) return iterator.next().then((next) => (next.done ? next : { done: false, value: [next.value] }))
        return run.nextBatch().then(stepBatch, failedBatch)
      } catch (thrown) {
        return Promise.resolve(failedBatch(thrown))
      }
    },
    async return() {
      if (!over && run) {
        over = true
        await run.return?.()
      }
      return end()
    }
  }
  return { [Symbol.asyncIterator]: () => iterator }
}

/**
 * The gateway over the app: every chat call goes through the one model caller, so it uses the
 * same runtimes (clamping, error mapping, retries before the first byte, idle watchdog), the
 * same keys from the keychain, the same pricing, and writes one usage-log line under the scene
 * "Local API" with the key that made it — also when the client hangs up mid-stream.
 */
export function createAppGatewayBackend(deps: AppBackendDeps): GatewayBackend {
  return {
    async models() {
      const list = await deps.providers.list({ type: 'chat' })
      const out: GatewayModel[] = []
      const seen = new Set<string>()
      for (const group of list.picker) {
        // Embedding models are not in the chat picker; the provider's full list has them.
        const models = await deps.providers.models(group.provider.id).catch(() => group.models)
        for (const m of models) {
          if (!m.enabled || (m.type !== 'chat' && m.type !== 'embedding')) continue
          const id = `${group.provider.id}/${m.id}`
          if (seen.has(id)) continue
          seen.add(id)
          out.push({ id, providerId: group.provider.id, modelId: m.id, type: m.type })
        }
      }
      return out
    },

    async admit(target) {
      if (target.providerId !== BUILTIN) return
      // The engine would also run any .gguf by its path (the CLI's `chat builtin/<path>`) and say
      // whether the path exists; a client of the local API gets neither: the one answer for any
      // name the lists do not hold, with no look at the disk beyond them. With no engine nothing
      // loads: the call itself answers why.
      if (isUnavailable(deps.builtin) || (await deps.builtin.listed(target.modelId))) return
      throw new GatewayError(
        'not_found',
        `The built-in engine has no model ${JSON.stringify(target.modelId)}: the local API reaches the models on the Local models page (the library and the folders added there) by name; GET /v1/models lists them.`,
        'model'
      )
    },

    nativeApi: (target) => nativeApiOf(target.providerId, target.modelId),

    chat(target, request: ChatRequest, context): AsyncIterable<StreamEvent> {
      const { model: _model, messages, ...params } = request
      return callEvents(() => deps.caller.run({ target, scene: 'Local API', messages, params, apiKeyId: context.keyId, estimateUsage: true, signal: context.signal }), target.providerId)
    },

    // Embeddings go through the same caller as chat, priced and logged as kind `embedding`.
    embed: (target, input, context) =>
      deps.caller.embed({ target, scene: 'Local API', apiKeyId: context.keyId, ...(Array.isArray(input) ? { input } : { input: [], tokenIds: input.tokenIds }), ...(context.dimensions ? { dimensions: context.dimensions } : {}), signal: context.signal }),

    spent: (keyId) => deps.usage.spentByKey(keyId)
  }
}
