import type { Feature, ProceduresOf } from '../feature'
import type { Store } from '../store'
import type { StreamHub } from '../bridge/stream-hub'
import type { ModelCaller } from '../caller/model-caller'
import { ImageService } from './image-service'
import { imageHandlers } from './handlers'

/** Image generation, its tasks and its files. */
export const imagesFeature: Feature<{ env: { dataDir: string }; store: Store; hub: StreamHub; caller: ModelCaller }, { images: ImageService }, ProceduresOf<'images'>> = {
  create: ({ env, store, hub, caller }) => ({ images: new ImageService({ store, dataDir: env.dataDir, caller, tasks: hub }) }),
  handlers: (use) => imageHandlers(use('images', 'Image generation'))
}
