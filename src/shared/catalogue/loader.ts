import { CATALOGUE_PROVIDER_IDS, catalogueLoaders, providerCards, type CatalogueProviderId } from '../../../catalogue/index'
import { AppErrorException } from '../errors/app-error'
import { throwApp, unknownProviderError } from './errors'
import { mergeCatalogues, toMergedModel } from './merge'
import type { CatalogueModel, MergedModel, ProviderCard } from './types'

/**
 * Lazy access to the built-in catalogue. Each provider's file is imported (and parsed) on
 * first use only and kept afterwards; concurrent first calls share one import.
 */
const cache = new Map<string, Promise<CatalogueModel[]>>()

export const isCatalogueProviderId = (id: string): id is CatalogueProviderId =>
  (CATALOGUE_PROVIDER_IDS as readonly string[]).includes(id)

export function listProviderCards(): ProviderCard[] {
  return providerCards
}

export function getProviderCard(providerId: string): ProviderCard {
  return providerCards.find((card) => card.id === providerId) ?? throwApp(unknownProviderError(providerId, CATALOGUE_PROVIDER_IDS))
}

/** The builtin list of one provider. Rejects with an AppErrorException (UnknownProvider) for an unknown id. */
export function loadProviderModels(providerId: string): Promise<CatalogueModel[]> {
  if (!isCatalogueProviderId(providerId)) return Promise.reject(toException(providerId))
  let pending = cache.get(providerId)
  if (!pending) {
    pending = catalogueLoaders[providerId]().then((file) => file.models)
    cache.set(providerId, pending)
  }
  return pending
}

const mergedByProvider = new Map<string, Promise<readonly MergedModel[]>>()

/**
 * One provider's builtin list as merged entries, built once per loaded file (the built-in
 * catalogue does not change while the app runs) and shared read-only: a model lookup runs on
 * every call.
 */
export function loadMergedProviderModels(providerId: string): Promise<readonly MergedModel[]> {
  let pending = mergedByProvider.get(providerId)
  if (!pending) {
    pending = loadProviderModels(providerId).then((models) => Object.freeze(models.map((model) => toMergedModel(providerId, model))))
    pending.catch(() => mergedByProvider.delete(providerId))
    mergedByProvider.set(providerId, pending)
  }
  return pending
}

let merged: Promise<readonly MergedModel[]> | undefined

/**
 * The merged flat list of every provider, in catalogue order (loads every file). Built once
 * and shared: callers get the same read-only array, so lookups can keep an index on it.
 */
export function loadMergedList(): Promise<readonly MergedModel[]> {
  merged ??= Promise.all(
    CATALOGUE_PROVIDER_IDS.map(async (providerId) => ({ providerId, models: await loadProviderModels(providerId) }))
  ).then((lists) => Object.freeze(mergeCatalogues(lists)))
  return merged
}

/** Providers whose file has been loaded so far (for tests and diagnostics). */
export const loadedProviderIds = (): string[] => [...cache.keys()]

const toException = (providerId: string) => new AppErrorException(unknownProviderError(providerId, CATALOGUE_PROVIDER_IDS))
