import type { Contract } from '../../../shared/bridge/contract'
import { AppErrorException } from '../../../shared/errors/app-error'
import type { CoreContext } from '../../context'
import type { EmbeddingService } from '../../services/embedding-service'
import type { Implementation } from '../router'

type EmbeddingHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `embeddings.${string}`>>

const notReady = () => new AppErrorException({ errorType: 'AgentRuntimeError', status: 503, message: 'Switchboard is still starting; try again in a moment.' })

export function embeddingHandlers(ctx: CoreContext): EmbeddingHandlers {
  const embeddings = (): EmbeddingService => ctx.embeddings ?? (() => { throw notReady() })()
  return {
    'embeddings.create': (input, { signal }) => embeddings().create(input, { signal })
  }
}
