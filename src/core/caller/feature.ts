import type { Feature } from '../feature'
import type { Store } from '../store'
import type { ProviderService } from '../providers/provider-service'
import type { ModelCaller } from './model-caller'
import { createModelCaller } from './create-caller'
import { testConnection } from './connection-test'

/** The one model caller: every call to a model is run, priced and logged here; Test connection is one. */
export const callerFeature: Feature<{ store: Store; providers: ProviderService }, { caller: ModelCaller }, 'providers.test'> = {
  create: ({ store, providers }) => ({
    caller: createModelCaller({
      runtimeFor: (providerId) => providers.runtime(providerId),
      price: (providerId, modelId, usage, context) => providers.price(providerId, modelId, usage, context),
      usage: store.usage,
      settings: store.settings
    })
  }),
  handlers: (use) => {
    const providers = use('providers', 'Provider settings')
    const caller = use('caller', 'Model calls')
    return { 'providers.test': ({ providerId, modelId }) => testConnection(providers(), caller(), providerId, modelId) }
  }
}
