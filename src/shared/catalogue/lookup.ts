import { isCatalogueProviderId, loadMergedList, loadMergedProviderModels } from './loader'
import type { MergedModel } from './types'

/**
 * The model lookup helper of product.md §1: a named property of the catalogue entry with
 * this id, restricted to `providerId` when given. When the restricted lookup finds nothing it
 * falls back to the first entry with the same id from any provider. When nothing is found it
 * answers 'chat' for `type` (every unknown model is assumed to chat) and undefined otherwise.
 */
export function lookupModelProperty<K extends keyof MergedModel>(
  list: readonly MergedModel[],
  modelId: string,
  property: K,
  providerId?: string
): MergedModel[K] | undefined {
  const entry =
    (providerId ? list.find((m) => m.id === modelId && m.providerId === providerId) : undefined) ??
    list.find((m) => m.id === modelId)
  if (entry) return entry[property]
  return property === 'type' ? ('chat' as MergedModel[K]) : undefined
}

/** Finds the whole entry with the same fallback rule (undefined when absent). */
export function findModel(list: readonly MergedModel[], modelId: string, providerId?: string): MergedModel | undefined {
  return (
    (providerId ? list.find((m) => m.id === modelId && m.providerId === providerId) : undefined) ?? list.find((m) => m.id === modelId)
  )
}

/**
 * Async form over the lazy catalogue: loads only the provider's file when the model is
 * there, and the whole merged list only for the any-provider fallback.
 */
export async function getModelProperty<K extends keyof MergedModel>(
  modelId: string,
  property: K,
  providerId?: string
): Promise<MergedModel[K] | undefined> {
  if (providerId && isCatalogueProviderId(providerId)) {
    const own = await loadMergedProviderModels(providerId)
    const hit = own.find((m) => m.id === modelId)
    if (hit) return hit[property]
  }
  return lookupModelProperty(await loadMergedList(), modelId, property)
}
