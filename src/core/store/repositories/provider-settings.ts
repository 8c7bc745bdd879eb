import type { FetchedModel, ProviderSettings, ProviderSettingsPatch } from '../../../shared/data/provider-settings'
import type { StoreDb } from '../database'
import { fromJson, opt } from '../json-column'
import type { ProviderSettingsRow } from '../schema'

const fromRow = (row: ProviderSettingsRow): ProviderSettings => ({
  providerId: row.provider_id,
  enabled: row.enabled === 1,
  baseUrl: opt(row.base_url),
  proxyUrl: opt(row.proxy_url),
  fetchedModels: fromJson<FetchedModel[]>(row.fetched_models) ?? [],
  fetchedAt: opt(row.fetched_at),
  modelOverrides: fromJson<ProviderSettings['modelOverrides']>(row.model_overrides) ?? {},
  updatedAt: row.updated_at
})

const defaults = (providerId: string): ProviderSettings => ({ providerId, enabled: false, fetchedModels: [], modelOverrides: {}, updatedAt: 0 })

/** Per-provider configuration. Keys are never here (core/secrets). */
export class ProviderSettingsRepository {
  constructor(private readonly db: StoreDb) {}

  /** The stored settings, or the defaults when the user never touched this provider. */
  get(providerId: string): ProviderSettings {
    const row = this.db.first(this.db.q.selectFrom('provider_settings').selectAll().where('provider_id', '=', providerId))
    return row ? fromRow(row) : defaults(providerId)
  }

  list(): ProviderSettings[] {
    return this.db.all(this.db.q.selectFrom('provider_settings').selectAll().orderBy('provider_id')).map(fromRow)
  }

  update(providerId: string, patch: ProviderSettingsPatch): ProviderSettings {
    return this.db.transaction(() => {
      const next: ProviderSettings = { ...this.get(providerId), ...patch, providerId, updatedAt: Date.now() }
      const row = {
        enabled: next.enabled ? 1 : 0,
        base_url: next.baseUrl ?? null,
        proxy_url: next.proxyUrl ?? null,
        fetched_models: JSON.stringify(next.fetchedModels),
        fetched_at: next.fetchedAt ?? null,
        model_overrides: JSON.stringify(next.modelOverrides),
        updated_at: next.updatedAt
      }
      this.db.run(
        this.db.q
          .insertInto('provider_settings')
          .values({ provider_id: providerId, ...row })
          .onConflict((oc) => oc.column('provider_id').doUpdateSet(row))
      )
      return next
    })
  }

  /** The user's choice for one model; it wins over fetched and built-in flags (product.md §4). */
  setModelEnabled(providerId: string, modelId: string, enabled: boolean): ProviderSettings {
    return this.db.transaction(() => {
      const current = this.get(providerId)
      return this.update(providerId, { modelOverrides: { ...current.modelOverrides, [modelId]: { enabled } } })
    })
  }

  delete(providerId: string): boolean {
    return this.db.run(this.db.q.deleteFrom('provider_settings').where('provider_id', '=', providerId)) > 0
  }
}
