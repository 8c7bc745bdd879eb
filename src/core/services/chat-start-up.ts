import type { CoreContext } from '../context'
import type { StreamHub } from '../bridge/stream-hub'
import type { InitStep } from './init-service'
import { ChatService } from './chat-service'
import { ProviderService } from './provider-service'
import { logger } from '../log/logger'

/** Builds the provider and chat services once the store and keychain are open. */
export function chatInitStep(context: CoreContext, hub: () => StreamHub): InitStep {
  return {
    phase: 'migrating',
    run() {
      const store = context.store
      const secrets = context.secrets
      if (!store || !secrets) throw new Error('The local data could not be opened, so chat cannot start.')
      const providers = new ProviderService(store, secrets, context.local.detection, context.keyEnv)
      context.providers = providers
      context.chat = new ChatService({
        agents: store.agents,
        conversations: store.conversations,
        messages: store.messages,
        runtimeFor: (providerId) => providers.runtime(providerId),
        modelFacts: (providerId, modelId) => providers.modelFacts(providerId, modelId),
        price: (providerId, modelId, usage, context) => providers.price(providerId, modelId, usage, context),
        logUsage: (entry) => {
          try {
            store.usage.add(entry as Parameters<typeof store.usage.add>[0])
          } catch (error) {
            // The usage log must never fail a reply, but a lost entry is logged.
            logger.warn('usage', 'recording a usage entry failed', error)
          }
        },
        titleModel: () => {
          const { titleModel } = store.settings.app()
          return titleModel ? { providerId: titleModel.providerId, modelId: titleModel.modelId } : undefined
        },
        // issue 15: each scene's model from Settings (`sceneModels`, keyed by scene name).
        sceneModel: (scene) => store.settings.app().sceneModels?.[scene],
        searchLimits: () => {
          const { searchMaxResults: maxResults, searchMaxUses: maxUses } = store.settings.app()
          return { ...(maxResults ? { maxResults } : {}), ...(maxUses ? { maxUses } : {}) }
        },
        // The settings are parsed once per change, not once per question a reply asks (store.settings.app()).
        contextLength: (providerId, modelId) => store.settings.app().contextLengths?.[`${providerId}/${modelId}`],
        tasks: hub(),
        // The image service starts in the next step; a reply only runs once both exist.
        saveImage: (input) => {
          if (!context.images) throw new Error('Image storage is not ready yet.')
          return context.images.saveChatImage(input)
        }
      })
      context.chat.defaultAgent()
    }
  }
}
