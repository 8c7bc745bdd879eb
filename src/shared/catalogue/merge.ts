import type { CatalogueModel, MergedModel } from './types'

/**
 * An entry of the merged flat list (product.md §1): the catalogue entry plus providerId and
 * source 'builtin'; enabled is false unless the entry says true; missing abilities become {}.
 * Our generated files already hold both defaults; applying them again keeps the rule true
 * for entries that come from elsewhere (tests, future custom lists).
 */
export function toMergedModel(providerId: string, model: CatalogueModel): MergedModel {
  return {
    ...model,
    providerId,
    source: 'builtin',
    enabled: model.enabled === true,
    abilities: model.abilities ?? {}
  }
}

export function mergeCatalogues(lists: ReadonlyArray<{ providerId: string; models: readonly CatalogueModel[] }>): MergedModel[] {
  const merged: MergedModel[] = []
  for (const { providerId, models } of lists) for (const model of models) merged.push(toMergedModel(providerId, model))
  return merged
}
