import { isCatalogueProviderId, loadProviderModels } from '../../../shared/catalogue/loader'
import { LOCAL_SERVER_KINDS } from '../../../shared/local/local-servers'
import type { CatalogueModel } from '../../../shared/catalogue/types'
import type { ModelRef } from './scenes'

/** The first rate of a price unit (fixed, or the first tier), per million tokens. */
function rateOf(model: CatalogueModel, name: 'textInput' | 'textOutput'): number | undefined {
  const unit = model.pricing?.units.find((u) => u.name === name)
  if (!unit) return undefined
  if (unit.strategy === 'fixed') return unit.rate
  if (unit.strategy === 'tiered') return unit.tiers[0]?.rate
  return undefined
}

/**
 * The default model of a background scene (issue 15: "a small model of a provider with a key"):
 * the cheapest enabled chat model of the conversation's own provider — a provider the user has a
 * key for, since the conversation runs on it. Local servers and providers whose catalogue gives
 * no prices keep the conversation's model.
 */
export async function smallModelOf(providerId: string): Promise<ModelRef | undefined> {
  if (!isCatalogueProviderId(providerId) || (LOCAL_SERVER_KINDS as readonly string[]).includes(providerId)) return undefined
  const models = await loadProviderModels(providerId)
  // Models without built-in reasoning first (a scene wants a short, quick answer), enabled ones
  // (what the provider shows by default) before the rest; then any priced chat model.
  const plain = models.filter((m) => !m.abilities.reasoning)
  const best = cheapest(plain.filter((m) => m.enabled)) ?? cheapest(plain) ?? cheapest(models.filter((m) => m.enabled)) ?? cheapest(models)
  return best && { providerId, modelId: best.id }
}

/** The cheapest priced chat model of a list. */
function cheapest(models: readonly CatalogueModel[]): CatalogueModel | undefined {
  let best: { model: CatalogueModel; output: number; input: number } | undefined
  for (const model of models) {
    if (model.type !== 'chat') continue
    const output = rateOf(model, 'textOutput')
    const input = rateOf(model, 'textInput')
    if (output === undefined || input === undefined || output <= 0) continue
    if (!best || output < best.output || (output === best.output && input < best.input)) best = { model, output, input }
  }
  return best?.model
}
