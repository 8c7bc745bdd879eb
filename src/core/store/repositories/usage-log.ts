import type { CostBreakdown } from '../../../shared/data/cost'
import { USAGE_KINDS, type UsageKind, type UsageLogEntry, type UsageLogInput, type UsageLocation, type UsageMode, type UsageOperation, type UsageScene, type UsageSummaryRow } from '../../../shared/data/usage-log'
import type { UsageRecord } from '../../../shared/stream/usage'
import type { StoreDb } from '../database'
import { newId } from '../ids'
import { fromJson, opt, toJson } from '../json-column'
import type { UsageLogRow } from '../schema'
import { DEFAULT_USD_TO_CNY, toUsd } from '../../../shared/pricing/currency'

// A kind this version does not know (a newer app wrote it) is still counted, as chat.
const kindOf = (value: string): UsageKind => ((USAGE_KINDS as readonly string[]).includes(value) ? (value as UsageKind) : 'chat')

const fromRow = (row: UsageLogRow): UsageLogEntry => ({
  id: row.id,
  at: row.at,
  kind: kindOf(row.kind),
  scene: row.scene as UsageScene,
  operation: opt(row.operation) as UsageOperation | undefined,
  mode: opt(row.mode) as UsageMode | undefined,
  location: opt(row.location) as UsageLocation | undefined,
  providerId: row.provider_id,
  modelId: row.model_id,
  conversationId: opt(row.conversation_id),
  messageId: opt(row.message_id),
  usage: fromJson<UsageRecord>(row.usage),
  cost: fromJson<CostBreakdown>(row.cost),
  durationMs: opt(row.duration_ms),
  apiKeyId: opt(row.api_key_id)
})

export type UsageGroup = 'kind' | 'scene' | 'operation' | 'provider' | 'model' | 'day' | 'agent' | 'conversation' | 'apiKey'

export interface UsageFilter {
  from?: number
  to?: number
  kind?: UsageKind
  scene?: UsageScene
  operation?: UsageOperation
  /** Only the calls made for this conversation / for this agent's conversations. */
  conversationId?: string
  agentId?: string
  /** The user's UTC offset, so "day" means their calendar day (minutes east of UTC). */
  utcOffsetMinutes?: number
  limit?: number
}

/**
 * A cost in USD. CNY-priced models convert at the fixed documented rate the pricing module uses
 * (DEFAULT_USD_TO_CNY); a currency the pricing module does not know has no USD value (0).
 */
export const costInUsd = (cost: number, currency: string | undefined): number =>
  !currency || currency === 'USD' ? cost : currency === 'CNY' ? toUsd(cost, 'CNY', DEFAULT_USD_TO_CNY) : 0

/** Adds a call's input and cache-read tokens (its usage JSON) to a running total: the cache hit rate's parts. */
function addInput(total: { inputTokens: number; cachedInputTokens: number }, usage: string | null): void {
  const record = fromJson<UsageRecord>(usage)
  if (!record) return
  total.inputTokens += record.totalInputTokens ?? 0
  total.cachedInputTokens += record.inputCachedTokens ?? 0
}

/** Every model call the app made, by scene and operation (product.md §8). */
export class UsageLogRepository {
  constructor(private readonly db: StoreDb) {}

  add(input: UsageLogInput): UsageLogEntry {
    const entry: UsageLogEntry = { ...input, kind: input.kind ?? 'chat', id: newId(), at: input.at ?? Date.now() }
    const totalTokens = entry.usage?.totalTokens ?? ((entry.usage?.totalInputTokens ?? 0) + (entry.usage?.totalOutputTokens ?? 0) || null)
    this.db.run(
      this.db.q.insertInto('usage_log').values({
        id: entry.id,
        at: entry.at,
        kind: entry.kind,
        scene: entry.scene,
        operation: entry.operation ?? null,
        mode: entry.mode ?? null,
        location: entry.location ?? null,
        provider_id: entry.providerId,
        model_id: entry.modelId,
        conversation_id: entry.conversationId ?? null,
        message_id: entry.messageId ?? null,
        usage: toJson(entry.usage),
        cost: toJson(entry.cost),
        cost_total: entry.cost?.total ?? null,
        currency: entry.cost?.currency ?? null,
        total_tokens: totalTokens,
        duration_ms: entry.durationMs ?? null,
        api_key_id: entry.apiKeyId ?? null
      })
    )
    return entry
  }

  private filtered(filter: UsageFilter) {
    let query = this.db.q.selectFrom('usage_log')
    if (filter.from !== undefined) query = query.where('at', '>=', filter.from)
    if (filter.to !== undefined) query = query.where('at', '<', filter.to)
    if (filter.kind) query = query.where('kind', '=', filter.kind)
    if (filter.scene) query = query.where('scene', '=', filter.scene)
    if (filter.operation) query = query.where('operation', '=', filter.operation)
    if (filter.conversationId) query = query.where('conversation_id', '=', filter.conversationId)
    if (filter.agentId) {
      const agentId = filter.agentId
      query = query.where('conversation_id', 'in', (eb) => eb.selectFrom('conversations').select('id').where('agent_id', '=', agentId))
    }
    return query
  }

  /** What one local API key has spent (USD) and how many calls it made: its cap is checked against this. */
  spentByKey(apiKeyId: string): { usd: number; calls: number; inputTokens: number; cachedInputTokens: number } {
    const rows = this.db.all(this.db.q.selectFrom('usage_log').select(['cost_total', 'currency', 'usage']).where('api_key_id', '=', apiKeyId))
    let usd = 0
    const tokens = { inputTokens: 0, cachedInputTokens: 0 }
    for (const row of rows) {
      usd += costInUsd(row.cost_total ?? 0, row.currency ?? undefined)
      addInput(tokens, row.usage)
    }
    return { usd, calls: rows.length, ...tokens }
  }

  /** Newest first. */
  list(filter: UsageFilter = {}): UsageLogEntry[] {
    const limit = Math.max(1, Math.min(filter.limit ?? 200, 10_000))
    return this.db.all(this.filtered(filter).selectAll().orderBy('at', 'desc').limit(limit)).map(fromRow)
  }

  /**
   * Totals grouped by kind, scene, operation, provider, model, day (the user's calendar day when the
   * offset is given, else UTC), agent or conversation; one row per key and pricing currency, each
   * also in USD. A call with no conversation (a title, a connectivity check) has the key "".
   */
  summary(group: UsageGroup, filter: UsageFilter = {}): UsageSummaryRow[] {
    const column = { kind: 'kind', scene: 'scene', operation: 'operation', provider: 'provider_id', model: 'model_id', day: 'at', conversation: 'conversation_id', apiKey: 'api_key_id' } as const
    const rows = this.db.all(this.filtered(filter).select(['kind', 'scene', 'operation', 'provider_id', 'model_id', 'at', 'cost_total', 'currency', 'total_tokens', 'conversation_id', 'api_key_id', 'usage']))
    const agentOf = new Map<string, string>()
    if (group === 'agent')
      for (const c of this.db.all(this.db.q.selectFrom('conversations').select(['id', 'agent_id']))) agentOf.set(c.id, c.agent_id)
    const offset = (filter.utcOffsetMinutes ?? 0) * 60_000
    const totals = new Map<string, UsageSummaryRow>()
    for (const row of rows) {
      const key =
        group === 'day'
          ? new Date(row.at + offset).toISOString().slice(0, 10)
          : group === 'agent'
            ? (agentOf.get(row.conversation_id ?? '') ?? '')
            : String(row[column[group]] ?? '')
      const currency = row.currency ?? undefined
      const mapKey = `${key}\u0000${currency ?? ''}`
      const total = totals.get(mapKey) ?? { key, calls: 0, totalTokens: 0, cost: 0, costUsd: 0, currency, inputTokens: 0, cachedInputTokens: 0 }
      addInput(total, row.usage)
      total.calls++
      total.totalTokens += row.total_tokens ?? 0
      total.cost += row.cost_total ?? 0
      total.costUsd += costInUsd(row.cost_total ?? 0, currency)
      totals.set(mapKey, total)
    }
    return [...totals.values()].sort((a, b) => b.calls - a.calls || a.key.localeCompare(b.key) || (a.currency ?? '').localeCompare(b.currency ?? ''))
  }
}
