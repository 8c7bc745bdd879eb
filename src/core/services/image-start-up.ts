import type { CoreContext } from '../context'
import type { StreamHub } from '../bridge/stream-hub'
import type { InitStep } from './init-service'
import { ImageService } from './image-service'

/** Builds the image service once the store and the provider service exist (after chat's step). */
export function imageInitStep(context: CoreContext, hub: () => StreamHub): InitStep {
  return {
    phase: 'migrating',
    run() {
      const store = context.store
      const providers = context.providers
      if (!store || !providers) throw new Error('The local data could not be opened, so image generation cannot start.')
      context.images = new ImageService({
        store,
        dataDir: context.dataDir,
        runtimeFor: (providerId) => providers.runtime(providerId),
        tasks: hub()
      })
    }
  }
}
