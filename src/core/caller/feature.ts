import type { Feature } from '../feature'
import type { Store } from '../store'
import type { ProviderService } from '../providers/provider-service'
import { logger } from '../log/logger'
import { ModelCaller } from './model-caller'
import { testConnection } from './connection-test'

/** The one model caller: every call to a model is run, priced and logged here; Test connection is one. */
export const callerFeature: Feature<{ store: Store; providers: ProviderService }, { caller: ModelCaller }, 'providers.test'> = {
  create: ({ store, providers }) => ({
    caller: new ModelCaller({
      runtimeFor: (providerId) => providers.runtime(providerId),
      price: (providerId, modelId, usage, context) => providers.price(providerId, modelId, usage, context),
      logUsage: (entry) => {
        try {
          store.usage.add(entry)
        } catch (error) {
          // The usage log must never fail a reply, but a lost entry is logged.
          logger.warn('usage', 'recording a usage entry failed', error)
        }
      },
      // Each scene's model from Settings (`sceneModels`, keyed by scene name); titles also have their own setting.
      sceneModel: (scene) => {
        const app = store.settings.app()
        const chosen = app.sceneModels?.[scene]
        if (chosen) return chosen
        const title = scene === 'Summary Topic Title' ? app.titleModel : undefined
        return title ? { providerId: title.providerId, modelId: title.modelId } : undefined
      }
    })
  }),
  handlers: (use) => {
    const providers = use('providers', 'Provider settings')
    const caller = use('caller', 'Model calls')
    return { 'providers.test': ({ providerId, modelId }) => testConnection(providers(), caller(), providerId, modelId) }
  }
}
