import type { JsonObject } from './json'

/** A model entry as fetched from a provider's model list (kept raw; processed per product.md §4). */
export interface FetchedModel {
  id: string
  displayName?: string
  type?: string
  enabled?: boolean
  extra?: JsonObject
}

/**
 * What the user configured for one provider. The API key is NOT here: it lives in the OS
 * keychain (core/secrets); the renderer learns only { hasKey, last4 }.
 */
export interface ProviderSettings {
  providerId: string
  enabled: boolean
  baseUrl?: string
  proxyUrl?: string
  fetchedModels: FetchedModel[]
  fetchedAt?: number
  /** Per-model enabled flags the user chose; they override fetched and built-in flags (product.md §4). */
  modelOverrides: Record<string, { enabled: boolean }>
  updatedAt: number
}

export type ProviderSettingsPatch = Partial<Omit<ProviderSettings, 'providerId' | 'updatedAt'>>
