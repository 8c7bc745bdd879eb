import type { Feature } from '../feature'
import type { ProviderService } from '../providers/provider-service'
import { EmbeddingService } from './embedding-service'

/** Embeddings through the provider runtime (knowledge bases and the local API use them). */
export const embeddingsFeature: Feature<{ providers: ProviderService }, { embeddings: EmbeddingService }> = {
  create: ({ providers }) => ({ embeddings: new EmbeddingService({ runtimeFor: (providerId) => providers.runtime(providerId) }) })
}
