import type { ImageModelParameters } from '../image-params/types'
import type { Pricing } from '../pricing/types'
import { detectAbilities } from './ability-keywords'
import { cleanDisplayName } from './display-name'
import { typeFromModelId } from './model-type-keywords'
import type { KeywordProvider } from './provider-inference'
import { toReleasedAt } from './release-date'
import type { CatalogueModel, ModelAbilities, ModelType } from './types'

/** What a provider runtime's list call hands over, already mapped from its wire format. */
export interface FetchedModel {
  id: string
  displayName?: string
  description?: string
  type?: ModelType
  enabled?: boolean
  contextWindowTokens?: number
  maxOutput?: number
  /** The raw created value (epoch seconds or ms, ISO text, other text). */
  created?: number | string
  releasedAt?: string
  functionCall?: boolean
  reasoning?: boolean
  vision?: boolean
  search?: boolean
  imageOutput?: boolean
  video?: boolean
  /** Either our pricing or the simple per-million {input, output} many lists carry. */
  pricing?: Pricing | { input?: number; output?: number; currency?: Pricing['currency'] }
  parameters?: ImageModelParameters
}

/** The model list entry of providers.md §3 as every runtime returns it. */
export interface ModelListEntry {
  id: string
  displayName: string
  type: ModelType
  enabled: boolean
  contextWindowTokens?: number
  maxOutput?: number
  releasedAt?: string
  description?: string
  pricing?: Pricing
  parameters?: ImageModelParameters
  functionCall: boolean
  reasoning: boolean
  vision: boolean
  search: boolean
  imageOutput: boolean
  video: boolean
}

export interface ProcessModelListOptions {
  /** The provider's built-in list (matched case-insensitively by id). */
  builtin?: readonly CatalogueModel[]
  /** Entries saved in the provider's settings; a boolean `enabled` there wins. */
  stored?: ReadonlyArray<{ id: string; enabled?: unknown }>
  /** Keyword table to use for unknown ids; inferred from each id when absent. */
  keywordProvider?: KeywordProvider
}

type AbilityKey = 'functionCall' | 'reasoning' | 'vision' | 'search' | 'imageOutput' | 'video'

/**
 * Model-list processing of product.md §4. Every field comes from the fetched entry first,
 * then the built-in entry with the same id (case-insensitive), then keyword rules. When a
 * built-in entry matches, abilities it does not list are false (providers.md §3): the
 * catalogue is the better authority than a guess from the name.
 */
export function processModelList(fetched: readonly FetchedModel[], options: ProcessModelListOptions = {}): ModelListEntry[] {
  const builtinById = new Map<string, CatalogueModel>()
  for (const model of options.builtin ?? []) {
    const key = model.id.toLowerCase()
    if (!builtinById.has(key)) builtinById.set(key, model)
  }
  const storedById = new Map<string, unknown>()
  for (const entry of options.stored ?? []) storedById.set(entry.id, entry.enabled)

  const out: ModelListEntry[] = []
  for (const model of fetched) {
    const known = builtinById.get(model.id.toLowerCase())
    const type = model.type ?? known?.type ?? typeFromModelId(model.id)
    const parameters = model.parameters ?? known?.parameters
    // An image model without parameters cannot be offered in the image screen.
    if (type === 'image' && !parameters) continue

    const guessed = known ? undefined : detectAbilities(model.id, options.keywordProvider)
    const abilityOf = (key: AbilityKey): boolean =>
      model[key] ?? (known ? knownAbility(known.abilities, key) : (guessed?.[key as keyof typeof guessed] ?? false))

    const stored = storedById.get(model.id)
    const entry: ModelListEntry = {
      id: model.id,
      displayName: cleanDisplayName(model.displayName ?? known?.displayName, model.id),
      type,
      enabled: typeof stored === 'boolean' ? stored : (model.enabled ?? known?.enabled ?? false),
      functionCall: abilityOf('functionCall'),
      reasoning: abilityOf('reasoning'),
      vision: abilityOf('vision'),
      search: abilityOf('search'),
      imageOutput: abilityOf('imageOutput'),
      video: abilityOf('video')
    }
    const contextWindowTokens = model.contextWindowTokens ?? known?.contextWindowTokens
    if (contextWindowTokens !== undefined) entry.contextWindowTokens = contextWindowTokens
    const maxOutput = model.maxOutput ?? known?.maxOutput
    if (maxOutput !== undefined) entry.maxOutput = maxOutput
    const releasedAt = toReleasedAt(model.created, model.releasedAt ?? known?.releasedAt)
    if (releasedAt !== undefined) entry.releasedAt = releasedAt
    const description = model.description ?? known?.description
    if (description !== undefined) entry.description = description
    const pricing = toPricing(model.pricing) ?? known?.pricing
    if (pricing) entry.pricing = pricing
    if (parameters) entry.parameters = parameters
    out.push(entry)
  }
  return out
}

const knownAbility = (abilities: ModelAbilities | undefined, key: AbilityKey): boolean => abilities?.[key] === true

function toPricing(pricing: FetchedModel['pricing']): Pricing | undefined {
  if (!pricing) return undefined
  if ('units' in pricing && Array.isArray(pricing.units)) return pricing as Pricing
  const simple = pricing as { input?: number; output?: number; currency?: Pricing['currency'] }
  const units: Pricing['units'] = []
  if (typeof simple.input === 'number') units.push({ name: 'textInput', rate: simple.input, strategy: 'fixed', unit: 'millionTokens' })
  if (typeof simple.output === 'number') units.push({ name: 'textOutput', rate: simple.output, strategy: 'fixed', unit: 'millionTokens' })
  if (units.length === 0) return undefined
  return simple.currency ? { currency: simple.currency, units } : { units }
}
