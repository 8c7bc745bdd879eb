import type { Feature } from '../feature'
import type { ModelCaller } from '../caller/model-caller'
import { EmbeddingService } from './embedding-service'

/** Embeddings through the one caller (knowledge bases use them; each call is priced and logged). */
export const embeddingsFeature: Feature<{ caller: ModelCaller }, { embeddings: EmbeddingService }> = {
  create: ({ caller }) => ({ embeddings: new EmbeddingService({ caller }) })
}
