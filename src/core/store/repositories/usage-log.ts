import type { CostBreakdown } from '../../../shared/data/cost'
import type { UsageLogEntry, UsageLogInput, UsageLocation, UsageMode, UsageOperation, UsageScene, UsageSummaryRow } from '../../../shared/data/usage-log'
import type { UsageRecord } from '../../../shared/stream/usage'
import type { StoreDb } from '../database'
import { newId } from '../ids'
import { fromJson, opt, toJson } from '../json-column'
import type { UsageLogRow } from '../schema'

const fromRow = (row: UsageLogRow): UsageLogEntry => ({
  id: row.id,
  at: row.at,
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
  durationMs: opt(row.duration_ms)
})

export type UsageGroup = 'scene' | 'operation' | 'provider' | 'model' | 'day'

export interface UsageFilter {
  from?: number
  to?: number
  scene?: UsageScene
  operation?: UsageOperation
  limit?: number
}

/** Every model call the app made, by scene and operation (product.md §8). */
export class UsageLogRepository {
  constructor(private readonly db: StoreDb) {}

  add(input: UsageLogInput): UsageLogEntry {
    const entry: UsageLogEntry = { ...input, id: newId(), at: input.at ?? Date.now() }
    const totalTokens = entry.usage?.totalTokens ?? ((entry.usage?.totalInputTokens ?? 0) + (entry.usage?.totalOutputTokens ?? 0) || null)
    this.db.run(
      this.db.q.insertInto('usage_log').values({
        id: entry.id,
        at: entry.at,
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
        duration_ms: entry.durationMs ?? null
      })
    )
    return entry
  }

  private filtered(filter: UsageFilter) {
    let query = this.db.q.selectFrom('usage_log')
    if (filter.from !== undefined) query = query.where('at', '>=', filter.from)
    if (filter.to !== undefined) query = query.where('at', '<', filter.to)
    if (filter.scene) query = query.where('scene', '=', filter.scene)
    if (filter.operation) query = query.where('operation', '=', filter.operation)
    return query
  }

  /** Newest first. */
  list(filter: UsageFilter = {}): UsageLogEntry[] {
    const limit = Math.max(1, Math.min(filter.limit ?? 200, 10_000))
    return this.db.all(this.filtered(filter).selectAll().orderBy('at', 'desc').limit(limit)).map(fromRow)
  }

  /** Totals grouped by scene, operation, provider, model or UTC day; one currency per row. */
  summary(group: UsageGroup, filter: UsageFilter = {}): UsageSummaryRow[] {
    const column = { scene: 'scene', operation: 'operation', provider: 'provider_id', model: 'model_id', day: 'at' } as const
    const rows = this.db.all(this.filtered(filter).select(['scene', 'operation', 'provider_id', 'model_id', 'at', 'cost_total', 'currency', 'total_tokens']))
    const totals = new Map<string, UsageSummaryRow>()
    for (const row of rows) {
      const raw = row[column[group]]
      const key = group === 'day' ? new Date(row.at).toISOString().slice(0, 10) : String(raw ?? '')
      const currency = row.currency ?? undefined
      const mapKey = `${key}\u0000${currency ?? ''}`
      const total = totals.get(mapKey) ?? { key, calls: 0, totalTokens: 0, cost: 0, currency }
      total.calls++
      total.totalTokens += row.total_tokens ?? 0
      total.cost += row.cost_total ?? 0
      totals.set(mapKey, total)
    }
    return [...totals.values()].sort((a, b) => b.calls - a.calls || a.key.localeCompare(b.key))
  }
}
