import { AppErrorException, type AppError } from '../../shared/errors/app-error'
import type { ProviderList, PickerModel } from '../../shared/bridge/procedures/providers'
import type { CostBreakdown } from '../../shared/data/cost'
import type { UsageLogInput } from '../../shared/data/usage-log'
import type { ChatPricingContext } from '../../shared/pricing/lookup-params'
import type { StreamEvent } from '../../shared/stream/events'
import type { UsageRecord } from '../../shared/stream/usage'
import { countTokens } from '../../shared/tokens/count-tokens'
import { pricingContextOf } from '../runtime/pricing-context'
import type { ChatRequest, ProviderRuntime } from '../runtime/types'
import { logger } from '../log/logger'
import type { GatewayBackend, GatewayModel } from './backend'

/** What the gateway's backend uses of the app: the provider service and the usage ledger. */
export interface AppBackendDeps {
  providers: {
    list(options: { type?: 'chat' | 'image' }): Promise<ProviderList>
    models(providerId: string): Promise<PickerModel[]>
    runtime(providerId: string): Promise<ProviderRuntime>
    price(providerId: string, modelId: string, usage: UsageRecord, context?: ChatPricingContext): Promise<CostBreakdown | undefined>
  }
  usage: {
    add(entry: UsageLogInput): unknown
    spentByKey(apiKeyId: string): { usd: number; calls: number }
  }
}

const failure = (thrown: unknown, providerId: string): AppError =>
  thrown instanceof AppErrorException
    ? thrown.error
    : { errorType: 'AgentRuntimeError', status: 470, provider: providerId, message: thrown instanceof Error ? thrown.message : String(thrown) }

/**
 * The gateway over the app's providers: the same runtimes (clamping, error mapping, retries
 * before the first byte, idle watchdog), the same keys from the keychain, the same pricing, and
 * one usage-log entry per call under the scene "Local API" with the key that made it.
 */
export function createAppGatewayBackend(deps: AppBackendDeps): GatewayBackend {
  const log = async (entry: { providerId: string; modelId: string; usage?: UsageRecord; pricing?: ChatPricingContext; keyId: string; durationMs: number }): Promise<void> => {
    const cost = entry.usage ? await deps.providers.price(entry.providerId, entry.modelId, entry.usage, entry.pricing).catch(() => undefined) : undefined
    try {
      deps.usage.add({
        scene: 'Local API',
        providerId: entry.providerId,
        modelId: entry.modelId,
        apiKeyId: entry.keyId,
        durationMs: entry.durationMs,
        ...(entry.usage ? { usage: entry.usage } : {}),
        ...(cost ? { cost } : {})
      })
    } catch (error) {
      logger.warn('local-api', 'recording a usage entry failed', error)
    }
  }

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

    async *chat(target, request: ChatRequest, context): AsyncGenerator<StreamEvent> {
      const started = Date.now()
      let usage: UsageRecord | undefined
      let produced = ''
      try {
        const runtime = await deps.providers.runtime(target.providerId)
        if (!runtime.chat) throw new AppErrorException({ errorType: 'CapabilityNotSupported', status: 400, provider: target.providerId, message: `${target.providerId} does not offer chat.` })
        for await (const event of runtime.chat(request, { signal: context.signal })) {
          if (event.type === 'usage') usage = event.data
          else if (event.type === 'text' || event.type === 'reasoning') produced += event.data
          else if (event.type === 'tool_calls') produced += event.data.map((c) => c.function.arguments).join('')
          yield event
        }
      } catch (thrown) {
        yield { type: 'error', data: failure(thrown, target.providerId) }
      } finally {
        // A client that hung up mid-stream still pays for what was produced: with no usage from
        // the provider, the output is counted by the app's tokenizer (input unknown, left out).
        if (!usage && produced) usage = { totalOutputTokens: countTokens(produced), outputTextTokens: countTokens(produced) }
        await log({ providerId: target.providerId, modelId: target.modelId, ...(usage ? { usage } : {}), pricing: pricingContextOf(request), keyId: context.keyId, durationMs: Date.now() - started })
      }
    },

    async embed(target, input, context) {
      const started = Date.now()
      const runtime = await deps.providers.runtime(target.providerId)
      if (!runtime.embeddings) throw new AppErrorException({ errorType: 'CapabilityNotSupported', status: 400, provider: target.providerId, message: `${target.providerId} does not offer embeddings.` })
      const result = await runtime.embeddings({ model: target.modelId, input, ...(context.dimensions ? { dimensions: context.dimensions } : {}) }, { signal: context.signal })
      const tokens = result.usage?.promptTokens ?? result.usage?.totalTokens
      await log({ providerId: target.providerId, modelId: target.modelId, ...(tokens ? { usage: { totalInputTokens: tokens, inputTextTokens: tokens, totalTokens: tokens } } : {}), keyId: context.keyId, durationMs: Date.now() - started })
      return result
    },

    spent: (keyId) => deps.usage.spentByKey(keyId)
  }
}
