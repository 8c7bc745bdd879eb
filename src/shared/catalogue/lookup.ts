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
  const entry = findModel(list, modelId, providerId)
  if (entry) return entry[property]
  return property === 'type' ? ('chat' as MergedModel[K]) : undefined
}

/**
 * Lists are scanned once into an id → entries index, kept while the list lives: the picker
 * and the runtime look models up over and over in the same merged list.
 */
const indexes = new WeakMap<readonly MergedModel[], Map<string, MergedModel[]>>()

function indexOf(list: readonly MergedModel[]): Map<string, MergedModel[]> {
  let index = indexes.get(list)
  if (!index) {
    index = new Map()
    for (const model of list) {
      const same = index.get(model.id)
      if (same) same.push(model)
      else index.set(model.id, [model])
    }
    indexes.set(list, index)
  }
  return index
}

/** Finds the whole entry with the same fallback rule (undefined when absent). */
export function findModel(list: readonly MergedModel[], modelId: string, providerId?: string): MergedModel | undefined {
  const same = indexOf(list).get(modelId)
  if (!same) return undefined
  return (providerId ? same.find((m) => m.providerId === providerId) : undefined) ?? same[0]
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
