import type { Feature, ProceduresOf } from '../feature'
import type { Store } from '../store'
import type { StreamHub } from '../bridge/stream-hub'
import type { ProviderService } from '../providers/provider-service'
import { ImageService } from './image-service'
import { imageHandlers } from './handlers'

/** Image generation, its tasks and its files. */
export const imagesFeature: Feature<{ env: { dataDir: string }; store: Store; hub: StreamHub; providers: ProviderService }, { images: ImageService }, ProceduresOf<'images'>> = {
  create: ({ env, store, hub, providers }) => ({ images: new ImageService({ store, dataDir: env.dataDir, runtimeFor: (providerId) => providers.runtime(providerId), tasks: hub }) }),
  handlers: (use) => imageHandlers(use('images', 'Image generation'))
}
