import type { Contract } from '../../shared/bridge/contract'
import type { ImageService } from './image-service'
import type { Implementation } from '../bridge/router'

type ImageHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `images.${string}`>>


export function imageHandlers(images: () => ImageService): ImageHandlers {
  return {
    'images.generate': (input, c) => images().generate(input, c),
    'images.cancel': ({ generationId }) => images().cancel(generationId),
    'images.modelParameters': async ({ providerId, modelId }) => {
      const info = await images().modelInfo(providerId, modelId)
      return { parameters: info.parameters, known: info.known }
    },
    'images.file': ({ fileId }) => images().file(fileId),
    'images.delete': ({ id }) => images().delete(id)
  }
}
