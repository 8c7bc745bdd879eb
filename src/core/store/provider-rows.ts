import type { z } from 'zod'
import type { ImportReport, providerExportSchema } from '../../shared/data/export-file'
import type { ProviderSettingsTable } from './schema'
import type { Insertable } from 'kysely'

/** A provider entry of an export file. */
export type ProviderExport = z.infer<typeof providerExportSchema>

/**
 * One mapping between a provider's settings row and its entry in an export file, for every
 * export and import path (the one-transaction store API and the streaming file import/export).
 */
export function providerToExport(row: { provider_id: string; enabled: number; base_url: string | null; proxy_url: string | null; model_overrides: string }): ProviderExport {
  return {
    providerId: row.provider_id,
    enabled: row.enabled === 1,
    ...(row.base_url !== null ? { baseUrl: row.base_url } : {}),
    ...(row.proxy_url !== null ? { proxyUrl: row.proxy_url } : {}),
    modelOverrides: JSON.parse(row.model_overrides) as ProviderExport['modelOverrides']
  }
}

/** The endpoints an imported provider entry would set: listed in the import summary, applied only when the user says so. */
export function importedEndpoints(provider: ProviderExport): ImportReport['endpoints'][number] | undefined {
  if (!provider.baseUrl && !provider.proxyUrl) return undefined
  return { providerId: provider.providerId, ...(provider.baseUrl ? { baseUrl: provider.baseUrl } : {}), ...(provider.proxyUrl ? { proxyUrl: provider.proxyUrl } : {}) }
}

/** The settings row an imported provider entry becomes (its endpoints only with `applyEndpoints`). */
export function providerRowFromImport(provider: ProviderExport, applyEndpoints: boolean, now = Date.now()): Insertable<ProviderSettingsTable> {
  return {
    provider_id: provider.providerId,
    enabled: provider.enabled ? 1 : 0,
    base_url: applyEndpoints ? (provider.baseUrl ?? null) : null,
    proxy_url: applyEndpoints ? (provider.proxyUrl ?? null) : null,
    fetched_models: '[]',
    fetched_at: null,
    model_overrides: JSON.stringify(provider.modelOverrides),
    updated_at: now
  }
}
