import type { Contract } from '../../../shared/bridge/contract'
import { needs } from '../../services-access'
import type { CoreContext } from '../../context'
import type { Implementation } from '../router'

type LocalApiHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `localApi.${string}`>>

export function localApiHandlers(ctx: CoreContext): LocalApiHandlers {
  const gateway = needs(ctx, 'gateway', 'The local API')
  return {
    'localApi.status': () => gateway().status(),
    'localApi.update': (input) => gateway().update(input),
    'localApi.createKey': (input) => gateway().createKey(input),
    'localApi.revokeKey': ({ id }) => gateway().revokeKey(id)
  }
}
