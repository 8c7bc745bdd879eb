import type { Contract } from '../../../shared/bridge/contract'
import { notReady as notReadyFor } from '../not-ready'
import type { CoreContext } from '../../context'
import type { EmbeddingService } from '../../services/embedding-service'
import type { Implementation } from '../router'

type EmbeddingHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `embeddings.${string}`>>


export function embeddingHandlers(ctx: CoreContext): EmbeddingHandlers {
  const embeddings = (): EmbeddingService => ctx.embeddings ?? (() => { throw notReadyFor(ctx, 'Embeddings') })()
  return {
    'embeddings.create': (input, { signal }) => embeddings().create(input, { signal })
  }
}
