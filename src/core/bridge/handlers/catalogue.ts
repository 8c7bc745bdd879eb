import type { Contract } from '../../../shared/bridge/contract'
import { getProviderCard, isCatalogueProviderId, listProviderCards, loadMergedList, loadMergedProviderModels } from '../../../shared/catalogue/loader'
import { findModel } from '../../../shared/catalogue/lookup'
import type { Implementation } from '../router'

type CatalogueHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `catalogue.${string}`>>

/** Read-only catalogue access; the loader keeps each provider's parsed file after first use. */
export function catalogueHandlers(): CatalogueHandlers {
  return {
    'catalogue.providers': () => listProviderCards(),
    'catalogue.models': async ({ providerId, type }) => {
      getProviderCard(providerId) // typed UnknownProvider error for an unknown id
      const models = await loadMergedProviderModels(providerId)
      return type ? models.filter((m) => m.type === type) : models
    },
    'catalogue.merged': async ({ type }) => {
      const models = await loadMergedList()
      return type ? models.filter((m) => m.type === type) : [...models]
    },
    'catalogue.lookup': async ({ modelId, providerId }) => {
      if (providerId && isCatalogueProviderId(providerId)) {
        const own = (await loadMergedProviderModels(providerId)).find((m) => m.id === modelId)
        if (own) return own
      }
      return findModel(await loadMergedList(), modelId) ?? null
    }
  }
}
